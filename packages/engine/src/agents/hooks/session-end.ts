/**
 * The reaper's side of SessionEnd's fast path: the hook handed over the event text as it came and
 * its ancestor chain; here the event is validated (zod), the agent picked from the chain, the
 * record made to name it, and the reaper run (run-reaper.ts).
 */
import { z } from 'zod';
import type { ProcessEntry } from '../../table/types.js';
import { loadAgentRules } from '../rules/rules.js';
import { MAX_STORED_ARG_CHARS, MAX_STORED_ARGS } from '../sessions/store-schema.js';
import { prepareSessionEnd } from './handle-hook.js';
import { hookAgentOf, MAX_HOOK_INPUT_BYTES } from './hook-agents.js';
import { pickHookAgent } from './hook-ancestry.js';
import { parseHookEvent } from './hook-event.js';
import { REAPER_AGENT_EXIT_TIMEOUT_MS, runReaper } from './run-reaper.js';

const chainEntrySchema = z
  .object({
    pid: z.number().int().positive(),
    startTime: z.string().min(1).max(64),
    ppid: z.number().int().nonnegative(),
    args: z.array(z.string().max(MAX_STORED_ARG_CHARS)).max(MAX_STORED_ARGS),
    cwd: z.string().max(4096).nullable(),
    startedAtMs: z.number().nonnegative(),
  })
  .strict();

export const sessionEndConfigSchema = z
  .object({
    kind: z.literal('session-end'),
    agent: z.string().max(32),
    event: z.string().max(MAX_HOOK_INPUT_BYTES),
    chain: z.array(chainEntrySchema).max(512),
    stateRoot: z.string().min(1).max(4096),
    ledgerFile: z.string().min(1).max(4096),
    endedAtMs: z.number().nonnegative(),
    exitTimeoutMs: z.number().int().positive().max(REAPER_AGENT_EXIT_TIMEOUT_MS).optional(),
  })
  .strict();

export type SessionEndConfig = z.infer<typeof sessionEndConfigSchema>;

/** Only what the agent pick and the record use is real; the rest are neutral defaults. */
function asEntry(entry: SessionEndConfig['chain'][number]): ProcessEntry {
  return { ...entry, pgid: 0, sid: 0, state: 'S', uid: -1, command: '', cpuTimeMs: 0, rssBytes: 0 };
}

/** Runs the SessionEnd hand-off to its end; false when the event or agent was not usable. */
export async function runSessionEnd(config: SessionEndConfig): Promise<boolean> {
  const agent = hookAgentOf(config.agent);
  const event = parseHookEvent(config.event);
  if (agent === null || typeof event === 'string' || event.hook_event_name !== 'SessionEnd') return false;
  const { rules } = loadAgentRules(config.stateRoot);
  const chain = config.chain.map(asEntry);
  const ancestry = pickHookAgent(agent.ruleId, rules, chain);
  if (ancestry.agent === null) return false;
  const start = {
    agent,
    sessionId: event.session_id,
    root: ancestry.agent,
    cwd: event.cwd ?? null,
    now: config.endedAtMs,
  };
  const { config: reaper } = prepareSessionEnd(config, start, ancestry.chain);
  await runReaper({
    ...reaper,
    ...(config.exitTimeoutMs !== undefined ? { exitTimeoutMs: config.exitTimeoutMs } : {}),
  });
  return true;
}
