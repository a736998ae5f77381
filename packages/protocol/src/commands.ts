/**
 * Commands a UI sends to the engine host, and what each one answers. The UI is untrusted input:
 * every command is parsed with these schemas before the host acts on it.
 */
import { z } from 'zod';
import { exportSettingsSchema, exportStatusSchema } from './export-settings.js';
import {
  activityEntrySchema,
  historyEntrySchema,
  identitySchema,
  killReportSchema,
  processNodeSchema,
  runLimitsSchema,
  scenarioInfoSchema,
} from './model.js';
import { MAX_TIMEOUT_SECONDS, MIN_TIMEOUT_SECONDS, SESSION_ALERT_KINDS } from './vocabulary.js';

export const MIN_POLL_INTERVAL_MS = 250;
export const MAX_POLL_INTERVAL_MS = 60_000;
export const MAX_ACTIVITY_ENTRIES = 100;
const MAX_ARGS = 256;
/** The most identities one agent clean-up may name (a confirmation list longer than this is not read). */
export const MAX_CLEAN_TARGETS = 4096;
const MAX_ARG_LENGTH = 8192;

const arg = z.string().max(MAX_ARG_LENGTH);
const CONTAINER_ID_PATTERN = /^[0-9a-f]{64}$/;
/**
 * What a container stop came to: stopped/killed through the API; gone, changed (not the container
 * judged), not-running; needs-all (weak evidence, not asked for); refused (no longer a leftover of
 * an ended session); failed (the engine's error).
 */
export const CONTAINER_STOP_RESULTS = [
  'stopped',
  'killed',
  'gone',
  'changed',
  'not-running',
  'needs-all',
  'refused',
  'failed',
] as const;

export const commandSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('startRun'),
    command: z.string().min(1).max(MAX_ARG_LENGTH),
    args: z.array(arg).max(MAX_ARGS),
    cwd: z.string().max(4096).optional(),
    timeoutSeconds: z.number().min(MIN_TIMEOUT_SECONDS).max(MAX_TIMEOUT_SECONDS),
    leaseName: z.string().min(1).max(128).optional(),
    limits: runLimitsSchema.optional(),
    /** Run in its own cgroup v2; the engine refuses it before launch where the probe found none. */
    cgroup: z.boolean().optional(),
  }),
  /** Kill the tree under `target`, exactly as the user saw it; a changed startTime is refused. */
  z.object({ type: z.literal('killTree'), target: identitySchema, graceSeconds: z.number().min(0).max(60).optional() }),
  /** What a killTree of `target` would end now (its tree and run-cookie escapees), signalling nothing. */
  z.object({ type: z.literal('previewKill'), target: identitySchema }),
  z.object({ type: z.literal('retryRun'), runId: z.string().min(1).max(128) }),
  z.object({ type: z.literal('releaseLease'), leaseId: z.string().min(1).max(128) }),
  /** Ends leaked trees of runs on record; `unregistered` ones only with `includeUnregistered: true`. */
  z.object({
    type: z.literal('cleanOrphans'),
    runId: z.string().min(1).max(128).optional(),
    includeUnregistered: z.boolean().optional(),
  }),
  /**
   * Ends agent leaks (of one session, or of any) with the engine's agent clean-up. `targets`: the
   * identities the user saw and confirmed, always named; anything else is left alone, a changed
   * one refused. Trees found from markers alone only with `includeMarkersOnly: true`.
   */
  z.object({
    type: z.literal('cleanAgentLeaks'),
    sessionId: z.string().min(1).max(160).optional(),
    targets: z.array(identitySchema).min(1).max(MAX_CLEAN_TARGETS),
    includeMarkersOnly: z.boolean().optional(),
  }),
  /**
   * Stops ended sessions' leftover containers through the container engine's API: `targets` are
   * the containers the user saw and confirmed (id and creation time); each is judged again and
   * inspected before the stop, a changed one refused. Weakly attributed ones (compose dir, bind
   * mount) only with `includeWeak: true`. Never removes a container or its volumes.
   */
  z.object({
    type: z.literal('stopSessionContainers'),
    sessionId: z.string().min(1).max(160).optional(),
    targets: z
      .array(
        z.object({ id: z.string().regex(CONTAINER_ID_PATTERN), createdAtMs: z.number().int().nonnegative() }).strict(),
      )
      .min(1)
      .max(MAX_CLEAN_TARGETS),
    includeWeak: z.boolean().optional(),
    /** Seconds the engine waits after the image's stop signal before SIGKILL (default 10). */
    graceSeconds: z.number().int().min(0).max(60).optional(),
  }),
  /**
   * Ends exactly the alerted processes of a live session's pile-up (`trim`): the identities the user
   * saw and confirmed, judged again first; one that is no longer alerted or changed is refused.
   */
  z.object({
    type: z.literal('trimSession'),
    sessionId: z.string().min(1).max(160),
    kind: z.enum(SESSION_ALERT_KINDS).optional(),
    targets: z.array(identitySchema).min(1).max(MAX_CLEAN_TARGETS),
  }),
  z.object({ type: z.literal('listScenarios') }),
  z.object({
    type: z.literal('runScenario'),
    name: z.string().min(1).max(128),
    naive: z.boolean().optional(),
    /** 'slow': scenarios that end by timeout get longer timeouts, so a person can watch. */
    pace: z.enum(['normal', 'slow']).optional(),
  }),
  z.object({
    type: z.literal('setPollInterval'),
    intervalMs: z.number().int().min(MIN_POLL_INTERVAL_MS).max(MAX_POLL_INTERVAL_MS),
  }),
  /** The system-wide table is polled only while a view shows it. */
  /** `ports: true` also reads every process's listening sockets (the full port map) while watched. */
  z.object({ type: z.literal('watchSystem'), enabled: z.boolean(), ports: z.boolean().optional() }),
  z.object({ type: z.literal('getHistory'), limit: z.number().int().min(1).max(1000).optional() }),
  /** The ledger's most recent run endings and kills, newest first, to restore Activity after a reload. */
  z.object({ type: z.literal('getActivity'), limit: z.number().int().min(1).max(MAX_ACTIVITY_ENTRIES).optional() }),
  /** The in-host exporter's settings (saved in the state dir) and whether it serves. */
  z.object({ type: z.literal('getExportSettings') }),
  /** Saves and applies them: the exporter restarts with them, or stops when `enabled` is false. */
  z.object({ type: z.literal('setExportSettings'), settings: exportSettingsSchema }),
]);
export type Command = z.infer<typeof commandSchema>;
export type CommandType = Command['type'];

const runStartedSchema = z.object({
  runId: z.string(),
  leaseId: z.string(),
  /** Set when the run could not even start (missing binary, launch failure): the engine's message. */
  launchError: z.string().nullable().optional(),
});

/** What each command answers on success. */
export const commandResultSchemas = {
  startRun: runStartedSchema,
  killTree: killReportSchema,
  previewKill: z.object({
    /** Why the kill would be refused (recycled or protected pid); null when it would proceed. */
    refused: z.string().nullable(),
    processes: z.array(
      z.object({
        pid: z.number().int().positive(),
        startTime: z.string(),
        ppid: z.number().int().nonnegative(),
        commandLine: z.string(),
        startedAtMs: z.number().nonnegative(),
        /** Not a descendant of the target: found by the run cookie (it escaped the tree). */
        outsideTree: z.boolean(),
      }),
    ),
  }),
  retryRun: runStartedSchema,
  releaseLease: z.object({ released: z.boolean(), kills: z.array(killReportSchema) }),
  cleanOrphans: z.object({ kills: z.array(killReportSchema) }),
  cleanAgentLeaks: z.object({
    processes: z.array(
      z.object({
        pid: z.number().int().positive(),
        startTime: z.string(),
        /** Null for a refused identity of no session the request named. */
        sessionId: z.string().nullable(),
        result: z.enum(['killed', 'already_gone', 'kill_failed', 'refused', 'error']),
        detail: z.string().optional(),
      }),
    ),
  }),
  stopSessionContainers: z.object({
    containers: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        /** Null for a refused target of no session the request named. */
        sessionId: z.string().nullable(),
        result: z.enum(CONTAINER_STOP_RESULTS),
        detail: z.string(),
      }),
    ),
  }),
  trimSession: z.object({
    processes: z.array(
      z.object({
        pid: z.number().int().positive(),
        startTime: z.string(),
        result: z.enum(['killed', 'already_gone', 'kill_failed', 'refused', 'error']),
        detail: z.string().optional(),
      }),
    ),
  }),
  listScenarios: z.object({ scenarios: z.array(scenarioInfoSchema) }),
  runScenario: runStartedSchema,
  setPollInterval: z.object({ intervalMs: z.number().int() }),
  watchSystem: z.object({ enabled: z.boolean(), processes: z.array(processNodeSchema) }),
  getHistory: z.object({ entries: z.array(historyEntrySchema) }),
  getActivity: z.object({ entries: z.array(activityEntrySchema) }),
  getExportSettings: exportStatusSchema,
  setExportSettings: exportStatusSchema,
} as const satisfies Record<CommandType, z.ZodType>;

export type CommandResult<T extends CommandType> = z.infer<(typeof commandResultSchemas)[T]>;
export type CommandOf<T extends CommandType> = Extract<Command, { type: T }>;
