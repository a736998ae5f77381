/** Builds the protocol Snapshot: leases → runs → processes, plus orphans and the counts. */
import { identityKey, isZombie, type ProcessEntry } from '@treewarden/engine';
import type { HolderState, LeaseView, OrphanView, ProcessNode, RunView, Snapshot } from '@treewarden/protocol';
import type { RunRecord } from '../run-record.js';
import { toProcessNode } from './process-node.js';

export interface LeaseEntry {
  readonly id: string;
  readonly name: string;
  readonly holder: { readonly pid: number; readonly startTime: string } | null;
  readonly holderCommand: string;
  readonly holderState: HolderState;
  readonly guardianLost?: boolean;
  readonly createdAtMs: number;
  readonly runs: readonly RunRecord[];
}

export interface SnapshotInput {
  readonly leases: readonly LeaseEntry[];
  readonly orphans: readonly OrphanView[];
  readonly cpuPercents: ReadonlyMap<string, number>;
  readonly pollIntervalMs: number;
  readonly now: number;
}

function nodeOf(entry: ProcessEntry, record: RunRecord, cpu: ReadonlyMap<string, number>): ProcessNode {
  return toProcessNode(entry, cpu.get(identityKey(entry)) ?? 0, record.membership.isEscaped(entry));
}

export function buildRunView(record: RunRecord, cpu: ReadonlyMap<string, number>): RunView {
  const processes = record.membership.entries().map((entry) => nodeOf(entry, record, cpu));
  const live = processes.filter((node) => !isZombie(node)).length;
  const tails = record.handle !== null && record.phase !== 'ended' ? record.handle.tails() : null;
  return {
    id: record.id,
    leaseId: record.leaseId,
    command: record.spec.command,
    args: [...(record.spec.args ?? [])],
    cwd: record.cwd,
    cookie: record.cookie,
    timeoutSeconds: record.timeoutSeconds,
    startedAtMs: record.startedAtMs,
    deadlineAtMs: record.startedAtMs + record.timeoutSeconds * 1000,
    endedAtMs: record.endedAtMs,
    phase: record.phase,
    root: record.root === null ? null : { pid: record.root.pid, startTime: record.root.startTime },
    classification: record.classification,
    exitCode: record.exitCode,
    signal: record.signal,
    processes,
    leakedCount: record.phase === 'ended' ? live : 0,
    lastKill: record.lastKill,
    stdoutTail: tails?.stdout ?? record.stdoutTail,
    stderrTail: tails?.stderr ?? record.stderrTail,
    ...(record.spec.limits === undefined ? {} : { limits: { ...record.spec.limits } }),
    ...(record.limitTrip === undefined ? {} : { limitTrip: record.limitTrip }),
  };
}

function buildLeaseView(lease: LeaseEntry, cpu: ReadonlyMap<string, number>): LeaseView {
  const runs = lease.runs.map((record) => buildRunView(record, cpu));
  const liveOf = (run: RunView) => run.processes.filter((node) => !isZombie(node)).length;
  return {
    id: lease.id,
    name: lease.name,
    holder: lease.holder === null ? null : { pid: lease.holder.pid, startTime: lease.holder.startTime },
    holderCommand: lease.holderCommand,
    holderState: lease.holderState,
    ...(lease.guardianLost === true ? { guardianLost: true } : {}),
    createdAtMs: lease.createdAtMs,
    runs,
    liveCount: runs.filter((run) => run.phase !== 'ended').reduce((sum, run) => sum + liveOf(run), 0),
    leakedCount: runs.reduce((sum, run) => sum + run.leakedCount, 0),
  };
}

export function buildSnapshot(input: SnapshotInput): Snapshot {
  const leases = input.leases.map((lease) => buildLeaseView(lease, input.cpuPercents));
  const inRuns = new Set<string>();
  for (const lease of leases)
    for (const run of lease.runs) for (const node of run.processes) inRuns.add(identityKey(node));
  const extraOrphans = input.orphans.filter((orphan) => !inRuns.has(identityKey(orphan.process))).length;
  return {
    takenAtMs: input.now,
    pollIntervalMs: input.pollIntervalMs,
    leases,
    orphans: [...input.orphans],
    counts: {
      live: leases.reduce((sum, lease) => sum + lease.liveCount, 0),
      leaked: leases.reduce((sum, lease) => sum + lease.leakedCount, 0) + extraOrphans,
    },
  };
}
