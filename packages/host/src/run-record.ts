/** What the host remembers about each run it shows: its spec, its phase, its members. */
import {
  DEFAULT_TIMEOUT_SECONDS,
  type KillOutcome,
  type ProcessIdentity,
  type RunOutcome,
  type RunSpec,
  toldEnd,
} from '@treewarden/engine';
import type { Classification, KillReport, LimitTrip, RunPhase } from '@treewarden/protocol';
import type { Killer } from '@treewarden/protocol/vocabulary';
import type { HostRun, RunEnforcement } from './engine/port.js';
import { enforcementOf } from './engine/run-enforcement.js';
import { createMembership, type Membership } from './snapshot/membership.js';

export interface RunRecord {
  readonly id: string;
  readonly leaseId: string;
  readonly spec: RunSpec;
  /** What Retry starts again; null when the full command line is unknown (`retryRefusal` says why). */
  readonly retrySpec: RunSpec | null;
  readonly cwd: string;
  readonly cookie: string;
  /** Null when no record says: shown as unknown, never a made-up deadline. */
  readonly timeoutSeconds: number | null;
  readonly deadlineAtMs: number | null;
  readonly startedAtMs: number;
  readonly root: ProcessIdentity | null;
  readonly membership: Membership;
  /** Null for runs of leases this host does not hold (it can watch and kill them, not cancel). */
  readonly handle: HostRun | null;
  phase: RunPhase;
  endedAtMs: number | null;
  classification: Classification | null;
  exitCode: number | null;
  signal: string | null;
  /** The engine's message when the run failed, or why it counts as ended without its supervisor. */
  endReason: string | null;
  /** Who ended it when it did not end on its own. */
  killedBy: Killer | null;
  /** A person's verified kill of its root from here: how a supervisor's "error by signal" is told. */
  personKill?: Killer;
  /** Its holder and guardian are dead and no end is recorded: what is left of it is leaked. */
  unsupervised: boolean;
  lastKill: KillReport | null;
  stdoutTail: string;
  stderrTail: string;
  /** The limit that ended the run, if one did. */
  limitTrip?: LimitTrip;
  /** How its limits were enforced and its cgroup: the start record's word, then the outcome's. */
  readonly enforcement?: RunEnforcement | null;
}

type RunState = Pick<
  RunRecord,
  | 'phase'
  | 'endedAtMs'
  | 'classification'
  | 'exitCode'
  | 'signal'
  | 'endReason'
  | 'killedBy'
  | 'unsupervised'
  | 'lastKill'
  | 'stdoutTail'
  | 'stderrTail'
>;

/** The fields a run's progress changes, as every record starts them: running, nothing to report yet. */
export function runningState(): RunState {
  return {
    phase: 'running',
    endedAtMs: null,
    classification: null,
    exitCode: null,
    signal: null,
    endReason: null,
    killedBy: null,
    unsupervised: false,
    lastKill: null,
    stdoutTail: '',
    stderrTail: '',
  };
}

/** `id` differs from the run id only when one scenario starts several runs under one cookie. */
export function recordOwnRun(handle: HostRun, id: string = handle.runId): RunRecord {
  // The engine validated the spec before the start: undefined means its default, never "unknown".
  const timeoutSeconds = handle.spec.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  const { runId: _previousId, ...retrySpec } = handle.spec;
  // The outcome's word, once there is one: it outlives a ledger that was rotated or unreadable.
  let ended: RunEnforcement | null = null;
  void handle.outcome.then(
    (outcome) => {
      ended = enforcementOf(outcome);
    },
    () => undefined, // trackRun reports a broken outcome promise
  );
  return {
    id,
    leaseId: handle.leaseId,
    spec: handle.spec,
    retrySpec,
    get cwd() {
      return handle.cwd;
    },
    cookie: handle.cookie,
    timeoutSeconds,
    deadlineAtMs: handle.startedAtMs + timeoutSeconds * 1000,
    startedAtMs: handle.startedAtMs,
    get root() {
      return handle.root;
    },
    membership: createMembership(() => handle.root),
    handle,
    ...runningState(),
    get enforcement() {
      return ended ?? handle.enforcement?.() ?? null;
    },
  };
}

/** Why Retry cannot start `record` again; null when it can. */
export function retryRefusal(record: RunRecord): string | null {
  if (record.phase !== 'ended') return 'the run is still going: Retry starts it again once it ended';
  if (record.retrySpec === null)
    return 'the ledger holds no start record with its command line, so it cannot be started again here; use "New run"';
  return null;
}

/** Records the engine's verdict on a run. */
export function endRun(record: RunRecord, outcome: RunOutcome, now: number): void {
  record.phase = 'ended';
  record.endedAtMs = now;
  record.classification = outcome.classification;
  record.exitCode = outcome.exitCode;
  record.signal = outcome.signal;
  record.endReason = outcome.error ?? null;
  const told = toldEnd(outcome, record.personKill);
  record.classification = told.classification;
  record.killedBy = told.killedBy;
  record.stdoutTail = outcome.stdoutTail;
  record.stderrTail = outcome.stderrTail;
  if (outcome.limit !== undefined) record.limitTrip = { ...outcome.limit };
  if (outcome.kill !== undefined) record.lastKill = toKillReport(outcome.kill);
  if (outcome.kept !== undefined) record.membership.release(outcome.kept);
}

/** Engine KillOutcome → protocol KillReport (plain arrays, plain objects). */
export function toKillReport(outcome: KillOutcome): KillReport {
  const identity = (i: ProcessIdentity) => ({ pid: i.pid, startTime: i.startTime });
  return {
    result: outcome.result,
    target: identity(outcome.target),
    attempts: outcome.attempts,
    killed: outcome.killed.map(identity),
    survivors: outcome.survivors.map(identity),
    timeline: outcome.timeline.map((entry) => ({
      atMs: Math.max(0, entry.atMs),
      action: entry.action,
      ...(entry.pids === undefined ? {} : { pids: [...entry.pids] }),
      ...(entry.groups === undefined ? {} : { groups: [...entry.groups] }),
      ...(entry.detail === undefined ? {} : { detail: entry.detail }),
    })),
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
    startedAtMs: outcome.startedAtMs,
    durationMs: Math.max(0, outcome.durationMs),
  };
}
