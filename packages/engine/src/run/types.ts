/** The contract of one supervised run. Implemented in run/ by the run supervisor. */

import type { Classification, Killer } from '@treewarden/protocol/vocabulary';
import type { KillOutcome } from '../kill/types.js';
import type { ProcessIdentity } from '../table/types.js';
import type { RunCgroup } from './cgroup.js';
import type { LimitEnforcement, LimitMethods, LimitTrip, RunLimits } from './limits.js';

// Shared with every UI, defined once in the protocol's vocabulary (plain constants, no zod).
export {
  CLASSIFICATIONS,
  type Classification,
  KILLERS,
  type Killer,
  MAX_TIMEOUT_SECONDS,
  MIN_TIMEOUT_SECONDS,
} from '@treewarden/protocol/vocabulary';
export const DEFAULT_TIMEOUT_SECONDS = 1800;

/** Environment cookies every run carries (defined with the cookie reader, membership/cookie.ts). */
export { LEASE_ID_ENV, RUN_ID_ENV } from '../membership/cookie.js';

export type RunPhase = 'starting' | 'running' | 'stopping' | 'ended';

export interface RunSpec {
  readonly command: string;
  readonly args?: readonly string[];
  /**
   * The exact bytes of [command, ...args], each as base64, when one of them is not valid UTF-8:
   * `command` and `args` are then only their display (U+FFFD for such bytes), and the worker is
   * started with these bytes (runtime/argv-bytes.ts). Absent when the strings are exact.
   */
  readonly argvBase64?: readonly string[];
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
   * Leased runs only: when the lease ends (released, or its holder died) this run is not ended
   * with the others; the guardian keeps supervising it (its timeout and limits still hold) and
   * exits once it ended. The lease's `lease_end` record lists it in `runsKept`.
   */
  readonly keepAfterLease?: boolean;
  /**
   * `inherit`: stdin/stdout/stderr are the caller's (no tails, so classification is by exit only);
   * `capture`: bounded tails only, stdin ignored; `tee`: stdout/stderr are forwarded to the
   * caller's and tails are kept, so stderr can still be classified. Default `capture`.
   */
  readonly output?: 'inherit' | 'capture' | 'tee';
  /** Runaway limits checked on every owned-tree refresh; each one that trips ends the tree. */
  readonly limits?: RunLimits;
  /**
   * Place the run in its own cgroup v2 (`<parent>/treewarden/<runId>`, see run/cgroup.ts): exact
   * process count and CPU time for the limits, `cgroup.kill` after the tree kill. Refused before
   * launch, with the probe's reason, where no cgroup v2 parent of ours is writable.
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
  /** Present when the run had limits: per limit, what it was checked against. */
  readonly limitMethods?: LimitMethods;
  /** The run's own cgroup v2 directory, when it had one (`cgroup: true`). */
  readonly cgroup?: string;
  /** Who ended it, when it did not end on its own (its timeout, a limit, a person, its lease). */
  readonly killedBy?: Killer;
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
  /** The run's own cgroup v2 (`cgroup: true`); absent or null without one. */
  readonly cgroup?: RunCgroup | null;
  /** With limits: per limit, what it is checked against. */
  readonly limitMethods?: LimitMethods;
  /** Resolves once the run ended; never rejects (failures are classifications). */
  readonly outcome: Promise<RunOutcome>;
  /** Ends the whole tree; the outcome becomes `cancelled` (or `kill_failed`). No-op once stopping. */
  cancel(reason?: string, by?: Killer): void;
  /** Events from now on; returns the unsubscribe function. */
  subscribe(listener: (event: RunEvent) => void): () => void;
}
