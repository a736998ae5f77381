/**
 * Assembles the leases a snapshot shows: the ones this host holds, the ones it released, and
 * the ones others hold (read from the registry), each with its run records.
 */
import { toldEnd } from '@treewarden/engine';
import type { HostContext } from '../context.js';
import type { ForeignLease, ForeignRun, HostLease } from '../engine/port.js';
import { type RunRecord, runningState } from '../run-record.js';
import type { LeaseEntry } from './build-snapshot.js';
import { createMembership } from './membership.js';

function runsOf(context: HostContext, leaseId: string): RunRecord[] {
  return [...context.runs.values()].filter((record) => record.leaseId === leaseId);
}

/**
 * A record for a run another holder started: watched and killable, not cancellable from here.
 * Re-made when the facts on record change (the ledger's start arrives after the lease file's,
 * an end is recorded): the membership observed so far is kept.
 */
function recordForeignRun(context: HostContext, leaseId: string, run: ForeignRun, unsupervised: boolean): RunRecord {
  const known = context.runs.get(run.runId);
  const record: RunRecord = {
    ...(known ?? runningState()),
    id: run.runId,
    leaseId,
    spec: { command: run.command, args: run.args },
    retrySpec: run.retrySpec,
    cwd: run.cwd,
    cookie: run.runId,
    timeoutSeconds: run.timeoutSeconds,
    deadlineAtMs: run.deadlineAtMs,
    startedAtMs: run.startedAtMs,
    root: run.root,
    membership: known?.membership ?? createMembership(() => run.root),
    handle: null,
    enforcement: run.enforcement ?? null,
  };
  if (run.kept !== undefined) record.membership.release(run.kept);
  if (run.end !== null) {
    record.phase = 'ended';
    record.endedAtMs = run.end.endedAtMs;
    record.exitCode = run.end.exitCode;
    record.signal = run.end.signal;
    if (run.end.classification === null) record.classification = null;
    else {
      const told = toldEnd(
        { ...run.end, classification: run.end.classification, killedBy: run.end.killedBy ?? undefined },
        record.personKill,
      );
      record.classification = told.classification;
      record.killedBy = told.killedBy;
    }
    record.endReason = run.end.reason;
  }
  record.unsupervised = unsupervised && run.end === null;
  context.runs.set(run.runId, record);
  return record;
}

function ownEntry(context: HostContext, lease: HostLease, released: boolean): LeaseEntry {
  return {
    id: lease.id,
    name: lease.name,
    holder: lease.holder,
    holderCommand: context.selfCommand,
    holderState: released ? 'released' : 'alive',
    heldByThisApp: !released,
    ...(lease.guardianLost === true ? { guardianLost: true } : {}),
    createdAtMs: lease.createdAtMs,
    runs: runsOf(context, lease.id),
  };
}

function foreignEntry(context: HostContext, lease: ForeignLease): LeaseEntry {
  return {
    id: lease.id,
    name: lease.name,
    holder: lease.holder,
    holderCommand: lease.holderCommand,
    holderState: lease.holderState,
    heldByThisApp: false,
    ...(lease.guardianLost === true ? { guardianLost: true } : {}),
    createdAtMs: lease.createdAtMs,
    runs: lease.runs.map((run) =>
      recordForeignRun(context, lease.id, run, lease.holderState === 'dead' && !lease.guardianAlive),
    ),
  };
}

export function collectLeases(context: HostContext, held: readonly HostLease[]): LeaseEntry[] {
  const ownIds = new Set([...held.map((lease) => lease.id), ...context.released.keys()]);
  return [
    ...held.map((lease) => ownEntry(context, lease, false)),
    ...[...context.released.values()].map(({ lease }) => ownEntry(context, lease, true)),
    ...context.port.listForeignLeases(ownIds).map((lease) => foreignEntry(context, lease)),
  ];
}
