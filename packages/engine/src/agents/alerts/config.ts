/**
 * Thresholds of the pile-up judgement, from `<state dir>/agent-alerts.json` (next to the user's
 * `agent-rules/`). Every field is optional; what is absent takes the documented default. A file
 * that does not parse or validate is reported with the field it is about, and the defaults hold
 * (which end nothing automatically): bad input is never a crash and never a kill.
 */
import { closeSync, constants, fstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SESSION_ALERT_KINDS, type SessionAlertKind } from '@treewarden/protocol';
import { z } from 'zod';
import { openPrivateFile } from '../../state/trust.js';
import { AGENT_ID_PATTERN } from '../rules/rule-schema.js';

export const ALERT_CONFIG_FILE = 'agent-alerts.json';
/** A config larger than this is refused unread: it is a few hundred bytes. */
export const MAX_ALERT_CONFIG_BYTES = 64 * 1024;
/** A day: a longer window is a typo more often than a wish (and the sample ring must hold it). */
export const MAX_ALERT_WINDOW_SECONDS = 86_400;
/** 100 % per core, up to 64 cores (as the System view's flags). */
export const MAX_ALERT_CPU_PERCENT = 6400;
export const MAX_GROWTH_MIB_PER_MINUTE = 100_000;
export const MAX_BUDGET_PROCESSES = 1_000_000;
export const MAX_BUDGET_MEMORY_MIB = 64 * 1024 * 1024;
export const MAX_ALLOWED_STALE_SUBAGENTS = 10_000;
/** The budget key that applies to every agent without its own. */
export const ANY_AGENT = '*';

const seconds = z.number().min(1).max(MAX_ALERT_WINDOW_SECONDS);

const duplicateServersSchema = z.object({ enabled: z.boolean().default(true) }).strict();

const staleSubagentsSchema = z
  .object({
    enabled: z.boolean().default(true),
    /** Stale subagents tolerated; the newest this many are kept, the older ones are the alert. */
    allowed: z.number().int().min(0).max(MAX_ALLOWED_STALE_SUBAGENTS).default(2),
    /** A subagent whose parent lives counts as stale after this long without using any CPU. */
    idleSeconds: seconds.default(600),
  })
  .strict();

/** The System view's flag defaults: a spin of 90 % for 3 min, growth of 20 MiB/min over 5 min. */
const runawayJobSchema = z
  .object({
    enabled: z.boolean().default(true),
    cpuPercent: z.number().min(1).max(MAX_ALERT_CPU_PERCENT).default(90),
    cpuSeconds: seconds.default(180),
    memoryMibPerMinute: z.number().min(1).max(MAX_GROWTH_MIB_PER_MINUTE).default(20),
    memorySeconds: seconds.default(300),
  })
  .strict();

/**
 * A member holding more than `fdPercent` of its own soft fd limit, or more than `inotifyPercent` of
 * `fs.inotify.max_user_watches` (a per-user cap: one watcher past it makes every other fail with
 * ENOSPC). Orphaned watchers were seen holding 43 % of a machine's open files.
 */
const fdHogSchema = z
  .object({
    enabled: z.boolean().default(true),
    fdPercent: z.number().min(1).max(100).default(50),
    inotifyPercent: z.number().min(1).max(100).default(25),
  })
  .strict();

const budgetSchema = z
  .object({
    processes: z.number().int().min(1).max(MAX_BUDGET_PROCESSES).optional(),
    memoryMib: z.number().min(1).max(MAX_BUDGET_MEMORY_MIB).optional(),
  })
  .strict();
export type Budget = z.infer<typeof budgetSchema>;

const budgetKey = z.string().refine((key) => key === ANY_AGENT || AGENT_ID_PATTERN.test(key), {
  message: 'an agent id (e.g. "claude-code") or "*"',
});

const autoTrimSchema = z
  .object({
    /** Kinds ended without asking (by `watch`); none unless the user lists them. */
    kinds: z.array(z.enum(SESSION_ALERT_KINDS)).max(SESSION_ALERT_KINDS.length).default([]),
    /** An alert must have stood this long first (a server being replaced overlaps for a moment). */
    afterSeconds: z.number().min(0).max(MAX_ALERT_WINDOW_SECONDS).default(30),
  })
  .strict();

export const DEFAULT_BUDGETS: Readonly<Record<string, Budget>> = { [ANY_AGENT]: { processes: 400, memoryMib: 8192 } };

export const alertConfigSchema = z
  .object({
    version: z.literal(1).default(1),
    duplicateServers: duplicateServersSchema.default({ enabled: true }),
    staleSubagents: staleSubagentsSchema.default(staleSubagentsSchema.parse({})),
    runawayJob: runawayJobSchema.default(runawayJobSchema.parse({})),
    fdHog: fdHogSchema.default(fdHogSchema.parse({})),
    /** Per agent id (or "*" for any; an agent's own fields win). Given, it replaces the defaults: `{}` is no budget. */
    budgets: z.record(budgetKey, budgetSchema).default({ ...DEFAULT_BUDGETS }),
    autoTrim: autoTrimSchema.default(autoTrimSchema.parse({})),
  })
  .strict();

export type AlertConfig = z.infer<typeof alertConfigSchema>;

export const DEFAULT_ALERT_CONFIG: AlertConfig = alertConfigSchema.parse({});

export interface AlertConfigLoad {
  readonly config: AlertConfig;
  /** Why the file was not used (the defaults hold then), naming the field. */
  readonly problem?: { readonly file: string; readonly message: string };
}

/** Validates a config's text; throws an Error naming the field that is wrong and why. */
export function parseAlertConfig(text: string): AlertConfig {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = alertConfigSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // A bad record key carries its own reason one level down.
    const inner = issue !== undefined && 'issues' in issue ? issue.issues[0]?.message : undefined;
    throw new Error(`${issue?.path.join('.') || '(top)'}: ${inner ?? issue?.message ?? 'rejected'}`);
  }
  return parsed.data;
}

/** The budget that applies to `agent`: its own fields over those of "*". */
export function budgetFor(config: AlertConfig, agent: string): Budget {
  return { ...config.budgets[ANY_AGENT], ...config.budgets[agent] };
}

export function autoTrims(config: AlertConfig, kind: SessionAlertKind): boolean {
  return config.autoTrim.kinds.includes(kind);
}

/** Read only when it is a private regular file of ours (state/trust.ts), as the agent rules are. */
function readConfigText(file: string): string | null {
  const fd = openPrivateFile(file, constants.O_RDONLY);
  if (fd === null) return null;
  try {
    if (fstatSync(fd).size > MAX_ALERT_CONFIG_BYTES) throw new Error(`larger than ${MAX_ALERT_CONFIG_BYTES} bytes`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

export function alertConfigPath(stateRoot: string): string {
  return join(stateRoot, ALERT_CONFIG_FILE);
}

/** The user's thresholds, or the defaults (with the problem) when the file is absent or bad. */
export function loadAlertConfig(stateRoot: string): AlertConfigLoad {
  const file = alertConfigPath(stateRoot);
  try {
    const text = readConfigText(file);
    return { config: text === null ? DEFAULT_ALERT_CONFIG : parseAlertConfig(text) };
  } catch (error) {
    const message = `ignored, defaults used (nothing is trimmed automatically): ${error instanceof Error ? error.message : String(error)}`;
    return { config: DEFAULT_ALERT_CONFIG, problem: { file, message } };
  }
}
