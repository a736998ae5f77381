/** What the host remembers about each run it shows: its spec, its phase, its members. */
import {
  DEFAULT_TIMEOUT_SECONDS,
  type KillOutcome,
  type ProcessIdentity,
  type RunOutcome,
  type RunSpec,
} from '@treewarden/engine';
import type { Classification, KillReport, LimitTrip, RunPhase } from '@treewarden/protocol';
import type { HostRun } from './engine/port.js';
import { createMembership, type Membership } from './snapshot/membership.js';

export interface RunRecord {
  readonly id: string;
  readonly leaseId: string;
  readonly spec: RunSpec;
  readonly cwd: string;
  readonly cookie: string;
  readonly timeoutSeconds: number;
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
  lastKill: KillReport | null;
  stdoutTail: string;
  stderrTail: string;
  /** The limit that ended the run, if one did. */
  limitTrip?: LimitTrip;
}

type RunState = Pick<
  RunRecord,
  'phase' | 'endedAtMs' | 'classification' | 'exitCode' | 'signal' | 'lastKill' | 'stdoutTail' | 'stderrTail'
>;

/** The fields a run's progress changes, as every record starts them: running, nothing to report yet. */
export function runningState(): RunState {
  return {
    phase: 'running',
    endedAtMs: null,
    classification: null,
    exitCode: null,
    signal: null,
    lastKill: null,
    stdoutTail: '',
    stderrTail: '',
  };
}

/** `id` differs from the run id only when one scenario starts several runs under one cookie. */
export function recordOwnRun(handle: HostRun, now: number, id: string = handle.runId): RunRecord {
  return {
    id,
    leaseId: handle.leaseId,
    spec: handle.spec,
    get cwd() {
      return handle.cwd;
    },
    cookie: handle.cookie,
    timeoutSeconds: handle.spec.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    startedAtMs: now,
    get root() {
      return handle.root;
    },
    membership: createMembership(() => handle.root),
    handle,
    ...runningState(),
  };
}

/** Records the engine's verdict on a run. */
export function endRun(record: RunRecord, outcome: RunOutcome, now: number): void {
  record.phase = 'ended';
  record.endedAtMs = now;
  record.classification = outcome.classification;
  record.exitCode = outcome.exitCode;
  record.signal = outcome.signal;
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
