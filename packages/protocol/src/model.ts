/**
 * The snapshot model: what the engine host tells a UI about leases, runs and process trees.
 * Every type here is inferred from a zod schema, so the same definition validates at runtime.
 */
import { z } from 'zod';
import { agentRoleSchema, agentSessionSchema } from './agents.js';
import { listeningSocketSchema, MAX_LISTENING_PER_PROCESS } from './ports.js';
import {
  CLASSIFICATIONS,
  KILL_RESULTS,
  KILL_TIMELINE_ACTIONS,
  KILLERS,
  LIMIT_ENFORCEMENTS,
  LIMIT_METHODS,
  LIMIT_NAMES,
  MAX_CPU_LIMIT_SECONDS,
  MAX_IDLE_TIMEOUT_SECONDS,
  MAX_MEMORY_LIMIT_BYTES,
  MAX_PROCS_LIMIT,
  MIN_CPU_LIMIT_SECONDS,
  MIN_IDLE_TIMEOUT_SECONDS,
  MIN_MEMORY_LIMIT_BYTES,
  MIN_PROCS_LIMIT,
} from './vocabulary.js';

const pid = z.number().int().positive();
const epochMs = z.number().nonnegative();

export const classificationSchema = z.enum(CLASSIFICATIONS);

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
  name: z.enum(LIMIT_NAMES),
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
  /**
   * CPU since the previous sample (100 = one core). Absent = unknown: the first time the host sees
   * a process it has no earlier CPU time to diff against, and a made-up 0 would be a false state.
   */
  cpuPercent: z.number().nonnegative().optional(),
  rssBytes: z.number().nonnegative(),
  startedAtMs: epochMs,
  /** In a different process group or session than its run's root: it tried to escape. */
  escaped: z.boolean(),
  /** How it escaped, decided once per identity against the run root's first-seen group and session. */
  escapedInto: z.enum(['session', 'group']).optional(),
  /** Run members only: why the host counts this process as part of its run (identity-checked evidence). */
  evidence: z.array(z.string().max(512)).max(8).optional(),
  /**
   * Sockets it listens on, from the host's port read (every PORT_READ_INTERVAL_MS, not each tick):
   * run members always, every process only while a view asks for the full map. Absent = none seen.
   */
  listening: z.array(listeningSocketSchema).max(MAX_LISTENING_PER_PROCESS).optional(),
});
export type ProcessNode = z.infer<typeof processNodeSchema>;

export const killTimelineEntrySchema = z.object({
  atMs: z.number().nonnegative(),
  action: z.enum(KILL_TIMELINE_ACTIONS),
  pids: z.array(z.number().int()).optional(),
  groups: z.array(z.number().int()).optional(),
  detail: z.string().optional(),
});

export const killReportSchema = z.object({
  result: z.enum(KILL_RESULTS),
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
  /** Null when no record says (runs recorded before timeouts were kept): shown as unknown, never guessed. */
  timeoutSeconds: z.number().positive().nullable(),
  startedAtMs: epochMs,
  deadlineAtMs: epochMs.nullable(),
  endedAtMs: epochMs.nullable(),
  phase: runPhaseSchema,
  root: identitySchema.nullable(),
  classification: classificationSchema.nullable(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  /** Live processes of the run's tree (flat; the UI nests them by ppid). */
  processes: z.array(processNodeSchema),
  /** Processes still alive after the run ended or after its supervisors died (its entries in `orphans`). */
  leakedCount: z.number().int().nonnegative(),
  /** Its holder and guardian are both dead: whatever is left of it runs unsupervised. */
  unsupervised: z.boolean(),
  /** Why it ended, in the engine's words: a launch failure, a kill that failed, a leak cleaned up… */
  endReason: z.string().nullable(),
  /** Who ended it when it did not end on its own (a person: ui, cli, mcp; its timeout, a limit, its lease). */
  killedBy: z.enum(KILLERS).nullable().optional(),
  /** Whether Retry can start it again, and if not, why (shown on the disabled button). */
  retry: z.object({ available: z.boolean(), reason: z.string().nullable() }),
  lastKill: killReportSchema.nullable(),
  stdoutTail: z.string(),
  stderrTail: z.string(),
  /**
   * False when this host never held the run's output (a run of another holder's lease, e.g.
   * `treewarden run` printing to its own terminal, or one restored from the ledger): empty tails
   * then mean "not here", never "printed nothing". Absent: captured.
   */
  outputCaptured: z.boolean().optional(),
  /** The run's limits, when it has any (runs this host started). */
  limits: runLimitsSchema.optional(),
  /** The limit that ended it. */
  limitTrip: limitTripSchema.optional(),
  /** Which path enforced its limits (from the engine's run_start record or outcome); absent: unknown or none. */
  limitEnforcement: z.enum(LIMIT_ENFORCEMENTS).optional(),
  /** Per limit (its CLI flag name), what it was checked against. */
  limitMethods: z.partialRecord(z.enum(LIMIT_NAMES), z.enum(LIMIT_METHODS)).optional(),
  /** The run's own cgroup v2 directory, when it ran in one. */
  cgroup: z.string().max(4096).optional(),
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
  /** Only the holder can release a lease: false for leases of the CLI, harnesses and other apps. */
  heldByThisApp: z.boolean(),
  /** The guardian died while the holder lived: the holder supervises the runs itself now. */
  guardianLost: z.boolean().optional(),
  createdAtMs: epochMs,
  runs: z.array(runViewSchema),
  liveCount: z.number().int().nonnegative(),
  leakedCount: z.number().int().nonnegative(),
});
export type LeaseView = z.infer<typeof leaseViewSchema>;

/**
 * `over`: a process of a run or lease that is over (recorded here). `unregistered`: it carries a
 * run cookie this state dir never recorded (another state dir, another tool): ending it takes an
 * explicit, separate ask, as `treewarden orphans --clean --all` does. `agent`: a surviving member
 * of an agent session whose root is gone (`agent`, `sessionId`, `role` say which).
 */
export const orphanKindSchema = z.enum(['over', 'unregistered', 'agent']);
export type OrphanKind = z.infer<typeof orphanKindSchema>;

export const orphanViewSchema = z.object({
  runId: z.string().nullable(),
  leaseId: z.string().nullable(),
  kind: orphanKindSchema,
  /** Why it was judged leaked: cookie of an ended run, cwd inside a run directory, recorded identity… */
  reasons: z.array(z.string()),
  process: processNodeSchema,
  /** Agent leaks only: the rule id (`claude-code`, …), the session and the member's role. */
  agent: z.string().min(1).max(64).optional(),
  sessionId: z.string().min(1).max(160).optional(),
  role: agentRoleSchema.optional(),
  /** Agent leaks only: found from markers alone (no remembered session); ending it takes an explicit ask. */
  markersOnly: z.boolean().optional(),
});
export type OrphanView = z.infer<typeof orphanViewSchema>;

/** A session's live process (root or member) with its role, as a tree node. */
/** Its `listening` sockets are read for dev-server members only. */
export const sessionProcessSchema = processNodeSchema.extend({ role: agentRoleSchema.or(z.literal('root')) });
export type SessionProcess = z.infer<typeof sessionProcessSchema>;

/** An agent session as the UI shows it: the CLI's row plus its live processes and their totals. */
export const sessionViewSchema = agentSessionSchema.extend({
  /** Live processes of the session now (root first while it lives; leaked members once it ended). */
  processes: z.array(sessionProcessSchema),
  /** Sum over the members whose CPU is known; absent while none is (just seen). */
  cpuPercent: z.number().nonnegative().optional(),
  rssBytes: z.number().nonnegative(),
});
export type SessionView = z.infer<typeof sessionViewSchema>;

/** Whether runs can go to their own cgroup v2 here, probed once when the host starts. */
export const cgroupCapabilitySchema = z.discriminatedUnion('available', [
  z.object({
    available: z.literal(true),
    /** The parent directory runs go under (`<path>/treewarden/<runId>`). */
    path: z.string().max(4096),
    controllers: z.array(z.string().max(64)).max(64),
  }),
  z.object({ available: z.literal(false), reason: z.string().max(2048) }),
]);
export type CgroupCapability = z.infer<typeof cgroupCapabilitySchema>;

/** What the host can do here, probed once at its start (not per tick). */
export const hostCapabilitiesSchema = z.object({ cgroup: cgroupCapabilitySchema.optional() });
export type HostCapabilities = z.infer<typeof hostCapabilitiesSchema>;

export const snapshotSchema = z.object({
  takenAtMs: epochMs,
  pollIntervalMs: z.number().int().positive(),
  leases: z.array(leaseViewSchema),
  /** Every leaked process, once: the one source of every leak count the UI shows (`counts.leaked` is its length). */
  orphans: z.array(orphanViewSchema),
  counts: z.object({ live: z.number().int().nonnegative(), leaked: z.number().int().nonnegative() }),
  /** Agent sessions (claude, codex, …), live and recently ended; absent where the host observes none. */
  sessions: z.array(sessionViewSchema).optional(),
  /** What the host cannot do here and the user must know (e.g. a native capability missing). */
  warnings: z.array(z.string()).optional(),
  /** Absent from hosts that do not probe (then the UI offers nothing that needs a capability). */
  capabilities: hostCapabilitiesSchema.optional(),
  /** The host user's home directory, so paths in the host's sentences can read `~/…`. */
  homeDir: z.string().max(4096).optional(),
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
  /** Whether the slow demo pace stretches this scenario's timeout (only those that end by timeout). */
  paceable: z.boolean().optional(),
});
export type ScenarioInfo = z.infer<typeof scenarioInfoSchema>;

export const historyEntrySchema = z.object({
  runId: z.string(),
  leaseId: z.string().nullable(),
  command: z.string(),
  /** The working directory the run_start record names (the user's, not the private run dir). */
  cwd: z.string().nullable().optional(),
  startedAtMs: epochMs,
  endedAtMs: epochMs.nullable(),
  classification: classificationSchema.nullable(),
  exitCode: z.number().int().nullable(),
  survivors: z.number().int().nonnegative(),
  /** The failure message, or why the run counts as ended without its supervisor. */
  endReason: z.string().nullable(),
  timeoutSeconds: z.number().positive().nullable(),
  /** Who ended it when it did not end on its own; absent from older hosts. */
  killedBy: z.enum(KILLERS).nullable().optional(),
});
export type HistoryEntry = z.infer<typeof historyEntrySchema>;

/** One line of the Activity panel restored from the ledger after a reload (run endings and kills). */
export const activityEntrySchema = z.object({
  atMs: epochMs,
  kind: z.enum(['run_end', 'kill', 'lease_end', 'container_stop']),
  ok: z.boolean(),
  title: z.string(),
  /** The recorded error, verbatim (e.g. a missing binary's hint). */
  message: z.string().nullable(),
  classification: classificationSchema.nullable(),
  runId: z.string().nullable(),
});
export type ActivityEntry = z.infer<typeof activityEntrySchema>;
