/**
 * Ledger record shapes. Every record starts with the same prefix (`{"v":1,"kind":`), which the
 * reader uses to resynchronise after a torn line: a writer killed mid-record leaves a fragment
 * without a newline, and the next writer's record is glued onto it.
 */
import type { KillResult } from '../kill/types.js';
import type { LimitEnforcement, LimitMethods, LimitTrip, RunLimits } from '../run/limits.js';
import type { Classification, Killer } from '../run/types.js';
import type { SignalName } from '../signal/types.js';
import type { ProcessIdentity } from '../table/types.js';

export const LEDGER_VERSION = 1;
export const RECORD_PREFIX = `{"v":${LEDGER_VERSION},"kind":`;

/** Who wrote a record: the process, and in which role. */
export interface LedgerActor {
  readonly role: 'holder' | 'guardian' | 'cli' | 'app' | 'test';
  readonly pid: number;
  readonly startTime?: string;
}

interface RecordBase {
  readonly v: typeof LEDGER_VERSION;
  /** ISO-8601 wall time of the write. */
  readonly at: string;
  readonly by: LedgerActor;
}

export interface LeaseStartRecord extends RecordBase {
  readonly kind: 'lease_start';
  readonly leaseId: string;
  readonly name: string;
  readonly holder: ProcessIdentity;
  readonly guardian: ProcessIdentity;
  readonly subreaper: boolean;
}

export interface LeaseEndRecord extends RecordBase {
  readonly kind: 'lease_end';
  readonly leaseId: string;
  /** `released`: the holder released it; `holder_died`: lease EOF without a release. */
  readonly reason: 'released' | 'holder_died';
  readonly runsEnded: readonly string[];
  readonly survivors: readonly ProcessIdentity[];
  /**
   * Runs started with `keepAfterLease`: not ended with the lease; its guardian supervises them
   * until they end (their own run_end records follow).
   */
  readonly runsKept?: readonly string[];
}

export interface RunStartRecord extends RecordBase {
  readonly kind: 'run_start';
  readonly runId: string;
  readonly leaseId?: string;
  readonly command: string;
  readonly args: readonly string[];
  /**
   * The exact bytes of [command, ...args] as base64, when one is not valid UTF-8 (`command` and
   * `args` then show U+FFFD for them); absent otherwise, and in records written before it was kept.
   */
  readonly argvBase64?: readonly string[];
  readonly cwd: string;
  readonly runDir?: string;
  readonly pid: number | null;
  readonly startTime: string | null;
  /** The run's effective timeout and deadline; absent in records written before they were kept. */
  readonly timeoutSeconds?: number;
  readonly deadlineAt?: string;
  /** The run's limits, when it had any, and the path that enforces them. */
  readonly limits?: RunLimits;
  readonly limitEnforcement?: LimitEnforcement;
  /** Per limit, what it was checked against (cgroup.procs, cpu.stat, memory.stat, polling, output). */
  readonly limitMethods?: LimitMethods;
  /** The run's own cgroup v2 directory, when it had one. */
  readonly cgroup?: string;
  /** Started with `keepAfterLease`: the lease's end does not end it. */
  readonly keepAfterLease?: boolean;
}

export interface RunEndRecord extends RecordBase {
  readonly kind: 'run_end';
  readonly runId: string;
  readonly leaseId?: string;
  readonly classification: Classification;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly durationMs: number;
  readonly killAttempts: number;
  readonly survivors: readonly ProcessIdentity[];
  readonly error?: string;
  /**
   * Set when the end was recorded by someone other than the run's supervisor (it died): why the
   * run counts as ended, e.g. "leaked after its holder and guardian died; cleaned by app pid 42".
   */
  readonly endedWithoutSupervisor?: string;
  /**
   * With keepDescendants: descendants deliberately left running when the root exited. They and
   * their descendants are no longer the lease's: no sweep ends them, no orphan scan reports them.
   */
  readonly kept?: readonly ProcessIdentity[];
  /** The limit that ended the run: name (`max-memory`, …), configured value, observed value. */
  readonly limit?: LimitTrip;
  readonly limitEnforcement?: LimitEnforcement;
  /** Per limit, what it was checked against (cgroup.procs, cpu.stat, memory.stat, polling, output). */
  readonly limitMethods?: LimitMethods;
  /** Who ended the run when it did not end on its own (newer records only). */
  readonly killedBy?: Killer;
  /** The run's own cgroup v2 directory, when it had one. */
  readonly cgroup?: string;
}

/**
 * The lease's guardian died while its holder lived: the holder took over the runs still going
 * (their deadlines and tree kills) and will record their ends itself.
 */
export interface GuardianLostRecord extends RecordBase {
  readonly kind: 'guardian_lost';
  readonly leaseId: string;
  readonly guardian: ProcessIdentity;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly runsTakenOver: readonly string[];
}

/** One tree-kill attempt: what was targeted, which signals went out, what survived. */
export interface KillRecord extends RecordBase {
  readonly kind: 'kill';
  readonly runId?: string;
  readonly leaseId?: string;
  /** Why the kill happened, e.g. `lease_eof`, `orphan_clean`, `timeout`. */
  readonly reason: string;
  readonly target: ProcessIdentity;
  readonly result: KillResult;
  readonly signals: readonly SignalName[];
  readonly pids: readonly number[];
  readonly killed: readonly ProcessIdentity[];
  readonly survivors: readonly ProcessIdentity[];
  readonly attempts: number;
  readonly error?: string;
}

/** What one container stop came to: the engine API's answer after the identity re-check. */
export const CONTAINER_STOP_RESULTS = ['stopped', 'killed', 'gone', 'changed', 'not-running', 'failed'] as const;
export type ContainerStopResult = (typeof CONTAINER_STOP_RESULTS)[number];

/**
 * One container a clean-up asked the engine to stop (a session's leftover): which one, judged
 * by what identity (id and creation time), and what came of it. Never a removal.
 */
export interface ContainerStopRecord extends RecordBase {
  readonly kind: 'container_stop';
  /** Why, e.g. `agent_container_clean` (the CLI's orphans) or `app_container_clean` (the app's). */
  readonly reason: string;
  readonly sessionId: string;
  readonly containerId: string;
  readonly name: string;
  readonly image: string;
  /** Epoch ms of the container's creation: with the id, the identity re-checked before the stop. */
  readonly createdAtMs: number;
  readonly strength: 'strong' | 'weak';
  readonly result: ContainerStopResult;
  readonly detail: string;
}

export type LedgerRecord =
  | LeaseStartRecord
  | LeaseEndRecord
  | RunStartRecord
  | RunEndRecord
  | KillRecord
  | GuardianLostRecord
  | ContainerStopRecord;
export type LedgerKind = LedgerRecord['kind'];

/** A record as callers hand it in: the writer stamps `v`, `at` and (by default) `by`. */
export type LedgerEntry = LedgerRecord extends infer R
  ? R extends LedgerRecord
    ? Omit<R, 'v' | 'at' | 'by'> & { readonly by?: LedgerActor; readonly at?: string }
    : never
  : never;
