/** The contract of one supervised run. Implemented in run/ by the run supervisor. */
import type { KillOutcome } from '../kill/types.js';
import type { ProcessIdentity } from '../table/types.js';
import type { LimitEnforcement, LimitTrip, RunLimits } from './limits.js';

export const MIN_TIMEOUT_SECONDS = 1;
export const MAX_TIMEOUT_SECONDS = 5400;
export const DEFAULT_TIMEOUT_SECONDS = 1800;

/** Environment cookies every run carries; inherited across setsid and double forks. */
export const RUN_ID_ENV = 'TREEWARDEN_RUN_ID';
export const LEASE_ID_ENV = 'TREEWARDEN_LEASE_ID';

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
export type Classification = (typeof CLASSIFICATIONS)[number];

export type RunPhase = 'starting' | 'running' | 'stopping' | 'ended';

export interface RunSpec {
  readonly command: string;
  readonly args?: readonly string[];
  readonly cwd?: string;
  /** Extra environment; the run and lease cookies are always added. */
  readonly env?: Readonly<Record<string, string>>;
  /** Bounded to MIN…MAX_TIMEOUT_SECONDS; a null/out-of-bound value is refused before launch. */
  readonly timeoutSeconds?: number | null;
  readonly graceSeconds?: number;
  readonly runId?: string;
  readonly leaseId?: string;
  /** Leave descendants alive after the root exits (default: end them, report as leftovers). */
  readonly keepDescendants?: boolean;
  /**
   * `inherit`: stdin/stdout/stderr are the caller's (no tails, so classification is by exit only);
   * `capture`: bounded tails only, stdin ignored; `tee`: stdout/stderr are forwarded to the
   * caller's and tails are kept, so stderr can still be classified. Default `capture`.
   */
  readonly output?: 'inherit' | 'capture' | 'tee';
  /** Runaway limits checked on every owned-tree refresh; each one that trips ends the tree. */
  readonly limits?: RunLimits;
  /**
   * Ask for enforcement in the run's own cgroup v2 (memory.max, pids.max, cgroup.kill). Refused
   * before launch where no delegated cgroup v2 subtree is writable, and (for now) everywhere: only
   * the polling path is built (see cgroup-probe.ts).
   */
  readonly cgroup?: boolean;
}

export interface RunOutcome {
  readonly runId: string;
  readonly classification: Classification;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly pid: number | null;
  readonly startTime: string | null;
  readonly durationMs: number;
  readonly killAttempts: number;
  readonly survivors: readonly ProcessIdentity[];
  readonly leftovers: readonly ProcessIdentity[];
  readonly stdoutTail: string;
  readonly stderrTail: string;
  readonly error?: string;
  readonly kill?: KillOutcome;
  /** With keepDescendants: descendants still alive when the root exited, deliberately left running. */
  readonly kept?: readonly ProcessIdentity[];
  /** The limit that ended the run (classification memory_limit, process_limit, cpu_limit, stalled, or kill_failed). */
  readonly limit?: LimitTrip;
  /** Present when the run had limits: which path enforced them. */
  readonly limitEnforcement?: LimitEnforcement;
}

export type RunEvent =
  | { readonly type: 'phase'; readonly phase: RunPhase }
  | { readonly type: 'spawned'; readonly identity: ProcessIdentity }
  /** The owned tree changed (emitted by the periodic observation, only on change). */
  | { readonly type: 'members'; readonly members: readonly ProcessIdentity[] }
  | { readonly type: 'output'; readonly stream: 'stdout' | 'stderr'; readonly text: string };

/** One supervised run, as returned by `startRun`. */
export interface Run {
  readonly id: string;
  readonly leaseId: string;
  /** The root's identity, read right after spawn; null before spawn or when the launch failed. */
  readonly identity: ProcessIdentity | null;
  readonly phase: RunPhase;
  /** Resolves once the run ended; never rejects (failures are classifications). */
  readonly outcome: Promise<RunOutcome>;
  /** Ends the whole tree; the outcome becomes `cancelled` (or `kill_failed`). No-op once stopping. */
  cancel(reason?: string): void;
  /** Events from now on; returns the unsubscribe function. */
  subscribe(listener: (event: RunEvent) => void): () => void;
}
