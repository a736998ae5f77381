/**
 * The snapshot model: what the engine host tells a UI about leases, runs and process trees.
 * Every type here is inferred from a zod schema, so the same definition validates at runtime.
 */
import { z } from 'zod';

const pid = z.number().int().positive();
const epochMs = z.number().nonnegative();

export const CLASSIFICATIONS = [
  'ok',
  'error',
  'timeout',
  'kill_failed',
  'missing_binary',
  'launch_failure',
  'usage_limit',
  'auth_failure',
  'cancelled',
  'memory_limit',
  'process_limit',
  'cpu_limit',
  'stalled',
] as const;
export const classificationSchema = z.enum(CLASSIFICATIONS);
export type Classification = z.infer<typeof classificationSchema>;

/** Limit bounds mirrored from the engine's run/limits.ts (checked equal by a host test). */
export const MIN_MEMORY_LIMIT_BYTES = 1024 * 1024;
export const MAX_MEMORY_LIMIT_BYTES = 16 * 1024 ** 4;
export const MIN_PROCS_LIMIT = 1;
export const MAX_PROCS_LIMIT = 65_536;
export const MIN_CPU_LIMIT_SECONDS = 1;
export const MAX_CPU_LIMIT_SECONDS = 1_000_000;
export const MIN_IDLE_TIMEOUT_SECONDS = 1;
/** The engine's MAX_TIMEOUT_SECONDS: an idle timeout longer than the longest run never trips. */
export const MAX_IDLE_TIMEOUT_SECONDS = 5400;
/** A run's runaway limits; each optional, unknown keys refused (a misspelt limit must not pass unenforced). */
export const runLimitsSchema = z
  .object({
    maxMemoryBytes: z.number().int().min(MIN_MEMORY_LIMIT_BYTES).max(MAX_MEMORY_LIMIT_BYTES).optional(),
    maxProcs: z.number().int().min(MIN_PROCS_LIMIT).max(MAX_PROCS_LIMIT).optional(),
    maxCpuSeconds: z.number().min(MIN_CPU_LIMIT_SECONDS).max(MAX_CPU_LIMIT_SECONDS).optional(),
    idleTimeoutSeconds: z.number().min(MIN_IDLE_TIMEOUT_SECONDS).max(MAX_IDLE_TIMEOUT_SECONDS).optional(),
  })
  .strict();
export type RunLimitsInput = z.infer<typeof runLimitsSchema>;

/** The limit that ended a run: its name (the CLI flag), configured value and observed value. */
export const limitTripSchema = z.object({
  name: z.enum(['max-memory', 'max-procs', 'max-cpu', 'idle-timeout']),
  value: z.number(),
  observed: z.number(),
});
export type LimitTrip = z.infer<typeof limitTripSchema>;

export const identitySchema = z.object({ pid, startTime: z.string().min(1).max(64) });
export type Identity = z.infer<typeof identitySchema>;

export const processNodeSchema = z.object({
  pid,
  startTime: z.string(),
  ppid: z.number().int().nonnegative(),
  pgid: z.number().int().nonnegative(),
  sid: z.number().int().nonnegative(),
  state: z.string().max(2),
  uid: z.number().int().nonnegative(),
  command: z.string(),
  /** argv joined for display, truncated by the host. */
  commandLine: z.string(),
  cwd: z.string().nullable(),
  cpuPercent: z.number().nonnegative(),
  rssBytes: z.number().nonnegative(),
  startedAtMs: epochMs,
  /** In a different process group or session than its run's root: it tried to escape. */
  escaped: z.boolean(),
});
export type ProcessNode = z.infer<typeof processNodeSchema>;

export const killTimelineEntrySchema = z.object({
  atMs: z.number().nonnegative(),
  action: z.enum(['observe', 'SIGTERM', 'SIGKILL', 'verify', 'retry', 'fallback-direct', 'refused']),
  pids: z.array(z.number().int()).optional(),
  groups: z.array(z.number().int()).optional(),
  detail: z.string().optional(),
});

export const killReportSchema = z.object({
  result: z.enum(['killed', 'already_gone', 'kill_failed', 'refused']),
  target: identitySchema,
  attempts: z.number().int().nonnegative(),
  killed: z.array(identitySchema),
  survivors: z.array(identitySchema),
  timeline: z.array(killTimelineEntrySchema),
  error: z.string().optional(),
  startedAtMs: epochMs,
  durationMs: z.number().nonnegative(),
});
export type KillReport = z.infer<typeof killReportSchema>;

export const runPhaseSchema = z.enum(['starting', 'running', 'stopping', 'ended']);
export type RunPhase = z.infer<typeof runPhaseSchema>;

export const runViewSchema = z.object({
  id: z.string(),
  leaseId: z.string(),
  command: z.string(),
  args: z.array(z.string()),
  cwd: z.string(),
  /** The cookie every process of this run carries in its environment. */
  cookie: z.string(),
  timeoutSeconds: z.number().positive(),
  startedAtMs: epochMs,
  deadlineAtMs: epochMs,
  endedAtMs: epochMs.nullable(),
  phase: runPhaseSchema,
  root: identitySchema.nullable(),
  classification: classificationSchema.nullable(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  /** Live processes of the run's tree (flat; the UI nests them by ppid). */
  processes: z.array(processNodeSchema),
  /** Processes still alive after the run ended. */
  leakedCount: z.number().int().nonnegative(),
  lastKill: killReportSchema.nullable(),
  stdoutTail: z.string(),
  stderrTail: z.string(),
  /** The run's limits, when it has any (runs this host started). */
  limits: runLimitsSchema.optional(),
  /** The limit that ended it. */
  limitTrip: limitTripSchema.optional(),
});
export type RunView = z.infer<typeof runViewSchema>;

export const holderStateSchema = z.enum(['alive', 'dead', 'released']);
export type HolderState = z.infer<typeof holderStateSchema>;

export const leaseViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  holder: identitySchema.nullable(),
  holderCommand: z.string(),
  holderState: holderStateSchema,
  /** The guardian died while the holder lived: the holder supervises the runs itself now. */
  guardianLost: z.boolean().optional(),
  createdAtMs: epochMs,
  runs: z.array(runViewSchema),
  liveCount: z.number().int().nonnegative(),
  leakedCount: z.number().int().nonnegative(),
});
export type LeaseView = z.infer<typeof leaseViewSchema>;

export const orphanViewSchema = z.object({
  runId: z.string().nullable(),
  leaseId: z.string().nullable(),
  /** Why it was judged leaked: cookie of an ended run, cwd inside a run directory, recorded identity… */
  reasons: z.array(z.string()),
  process: processNodeSchema,
});
export type OrphanView = z.infer<typeof orphanViewSchema>;

export const snapshotSchema = z.object({
  takenAtMs: epochMs,
  pollIntervalMs: z.number().int().positive(),
  leases: z.array(leaseViewSchema),
  orphans: z.array(orphanViewSchema),
  counts: z.object({ live: z.number().int().nonnegative(), leaked: z.number().int().nonnegative() }),
});
export type Snapshot = z.infer<typeof snapshotSchema>;

export const scenarioInfoSchema = z.object({
  name: z.string(),
  title: z.string(),
  explanation: z.string(),
  naiveFailure: z.string(),
  treewardenFix: z.string(),
  expected: z.object({ classification: classificationSchema, nothingSurvives: z.boolean() }),
  available: z.boolean(),
  unavailableReason: z.string().nullable(),
});
export type ScenarioInfo = z.infer<typeof scenarioInfoSchema>;

export const historyEntrySchema = z.object({
  runId: z.string(),
  leaseId: z.string().nullable(),
  command: z.string(),
  startedAtMs: epochMs,
  endedAtMs: epochMs.nullable(),
  classification: classificationSchema.nullable(),
  exitCode: z.number().int().nullable(),
  survivors: z.number().int().nonnegative(),
});
export type HistoryEntry = z.infer<typeof historyEntrySchema>;
