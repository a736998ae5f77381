/** The contract of one supervised run. Implemented in run/ by the run supervisor. */
import type { KillOutcome } from '../kill/types.js';
import type { ProcessIdentity } from '../table/types.js';

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
  /** `inherit`: stdout/stderr pass through; `capture`: bounded tails only. */
  readonly output?: 'inherit' | 'capture';
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
}
