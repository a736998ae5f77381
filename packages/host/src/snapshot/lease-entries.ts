/**
 * Assembles the leases a snapshot shows: the ones this host holds, the ones it released, and
 * the ones others hold (read from the registry), each with its run records.
 */
import { MAX_TIMEOUT_SECONDS } from '@treewarden/engine';
import type { HostContext } from '../context.js';
import type { ForeignLease, ForeignRun, HostLease } from '../engine/port.js';
import { type RunRecord, runningState } from '../run-record.js';
import type { LeaseEntry } from './build-snapshot.js';
import { createMembership } from './membership.js';

function runsOf(context: HostContext, leaseId: string): RunRecord[] {
  return [...context.runs.values()].filter((record) => record.leaseId === leaseId);
}

/** A record for a run another holder started: watched and killable, not cancellable from here. */
function recordForeignRun(context: HostContext, leaseId: string, run: ForeignRun): RunRecord {
  let record = context.runs.get(run.runId);
  if (record === undefined) {
    record = {
      id: run.runId,
      leaseId,
      spec: { command: run.command },
      cwd: run.cwd,
      cookie: run.runId,
      timeoutSeconds: run.timeoutSeconds ?? MAX_TIMEOUT_SECONDS,
      startedAtMs: run.startedAtMs,
      root: run.root,
      membership: createMembership(() => run.root),
      handle: null,
      ...runningState(),
    };
    context.runs.set(run.runId, record);
  }
  if (run.kept !== undefined) record.membership.release(run.kept);
  if (run.endedAtMs !== null) {
    record.phase = 'ended';
    record.endedAtMs = run.endedAtMs;
    record.classification = run.classification;
  }
  return record;
}

function ownEntry(context: HostContext, lease: HostLease, released: boolean): LeaseEntry {
  return {
    id: lease.id,
    name: lease.name,
    holder: lease.holder,
    holderCommand: context.selfCommand,
    holderState: released ? 'released' : 'alive',
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
    ...(lease.guardianLost === true ? { guardianLost: true } : {}),
    createdAtMs: lease.createdAtMs,
    runs: lease.runs.map((run) => recordForeignRun(context, lease.id, run)),
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
