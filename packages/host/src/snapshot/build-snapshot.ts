/**
 * Builds the protocol Snapshot: leases → runs → processes, plus the leaked processes and the
 * counts. Leaks have one source: `orphans`, the engine scan's findings joined with the live
 * members of runs that ended or lost their supervisors (each process once). Every leak count —
 * the header's, a lease's, a run's, the banner's — is counted from that one list.
 */
import { identityKey, isZombie, type ProcessEntry } from '@treewarden/engine';
import type {
  HolderState,
  HostCapabilities,
  LeaseView,
  OrphanView,
  ProcessNode,
  RunView,
  Snapshot,
} from '@treewarden/protocol';
import { type RunRecord, retryRefusal } from '../run-record.js';
import { type ListeningLookup, toProcessNode } from './process-node.js';
import type { AgentViews } from './session-views.js';

export interface LeaseEntry {
  readonly id: string;
  readonly name: string;
  readonly holder: { readonly pid: number; readonly startTime: string } | null;
  readonly holderCommand: string;
  readonly holderState: HolderState;
  readonly heldByThisApp: boolean;
  readonly guardianLost?: boolean;
  readonly createdAtMs: number;
  readonly runs: readonly RunRecord[];
}

export interface SnapshotInput {
  readonly leases: readonly LeaseEntry[];
  /** The engine orphan scan's findings (the latest scan, still-alive ones only). */
  readonly orphans: readonly OrphanView[];
  /** Agent sessions and their leaks (absent: none observed); the leaks join the one orphan list. */
  readonly agents?: AgentViews;
  readonly cpuPercents: ReadonlyMap<string, number>;
  /** Sockets each identity listens on (the host's last port read); absent: none shown. */
  readonly listeningOf?: ListeningLookup;
  readonly pollIntervalMs: number;
  readonly now: number;
  readonly warnings?: readonly string[];
  readonly capabilities?: HostCapabilities;
  readonly homeDir?: string;
}

function nodeOf(
  entry: ProcessEntry,
  record: RunRecord,
  cpu: ReadonlyMap<string, number>,
  listeningOf?: ListeningLookup,
): ProcessNode {
  const { membership } = record;
  const node = toProcessNode(entry, cpu.get(identityKey(entry)), membership.isEscaped(entry), listeningOf);
  const escapedInto = membership.escapeOf(entry);
  return { ...node, ...(escapedInto === null ? {} : { escapedInto }), evidence: membership.evidenceOf(entry) };
}

/** Why a live member of `record` is leaked; null while its run is still supervised and going. */
function leakReason(record: RunRecord): string | null {
  if (record.phase === 'ended')
    return `member of run ${record.id}, which ended (${record.classification ?? 'unknown'})`;
  if (record.unsupervised) return `member of run ${record.id}, whose lease holder and guardian are both dead`;
  return null;
}

/** The scan's orphans plus every live member of an ended or unsupervised run, each process once. */
export function collectLeaks(records: Iterable<RunRecord>, scanned: readonly OrphanView[]): OrphanView[] {
  const leaks = new Map(scanned.map((orphan) => [identityKey(orphan.process), orphan]));
  for (const record of records) {
    const reason = leakReason(record);
    if (reason === null) continue;
    for (const entry of record.membership.entries()) {
      const key = identityKey(entry);
      if (isZombie(entry) || leaks.has(key)) continue;
      leaks.set(key, {
        runId: record.id,
        leaseId: record.leaseId,
        kind: 'over',
        reasons: [reason],
        process: toProcessNode(entry, 0, record.membership.isEscaped(entry)),
      });
    }
  }
  return [...leaks.values()];
}

export function buildRunView(
  record: RunRecord,
  cpu: ReadonlyMap<string, number>,
  leakedCount: number,
  listeningOf?: ListeningLookup,
): RunView {
  const processes = record.membership.entries().map((entry) => nodeOf(entry, record, cpu, listeningOf));
  const tails = record.handle !== null && record.phase !== 'ended' ? record.handle.tails() : null;
  const refusal = retryRefusal(record);
  return {
    id: record.id,
    leaseId: record.leaseId,
    command: record.spec.command,
    args: [...(record.spec.args ?? [])],
    cwd: record.cwd,
    cookie: record.cookie,
    timeoutSeconds: record.timeoutSeconds,
    startedAtMs: record.startedAtMs,
    deadlineAtMs: record.deadlineAtMs,
    endedAtMs: record.endedAtMs,
    phase: record.phase,
    root: record.root === null ? null : { pid: record.root.pid, startTime: record.root.startTime },
    classification: record.classification,
    exitCode: record.exitCode,
    signal: record.signal,
    processes,
    leakedCount,
    unsupervised: record.unsupervised,
    endReason: record.endReason,
    killedBy: record.killedBy,
    retry: { available: refusal === null, reason: refusal },
    lastKill: record.lastKill,
    stdoutTail: tails?.stdout ?? record.stdoutTail,
    stderrTail: tails?.stderr ?? record.stderrTail,
    // Only runs this host started have their output piped here.
    ...(record.handle === null ? { outputCaptured: false } : {}),
    ...(record.spec.limits === undefined ? {} : { limits: { ...record.spec.limits } }),
    ...(record.limitTrip === undefined ? {} : { limitTrip: record.limitTrip }),
    ...enforcementView(record.enforcement),
  };
}

/** The run's limit path and cgroup as the view carries them (each absent when unknown). */
function enforcementView(
  enforcement: RunRecord['enforcement'],
): Pick<RunView, 'limitEnforcement' | 'limitMethods' | 'cgroup'> {
  if (enforcement === null || enforcement === undefined) return {};
  return {
    ...(enforcement.limitEnforcement === undefined ? {} : { limitEnforcement: enforcement.limitEnforcement }),
    ...(enforcement.limitMethods === undefined ? {} : { limitMethods: { ...enforcement.limitMethods } }),
    ...(enforcement.cgroup === undefined ? {} : { cgroup: enforcement.cgroup }),
  };
}

function countBy(leaks: readonly OrphanView[], key: (orphan: OrphanView) => string | null): Map<string, number> {
  const counts = new Map<string, number>();
  for (const orphan of leaks) {
    const id = key(orphan);
    if (id !== null) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

function buildLeaseView(
  lease: LeaseEntry,
  cpu: ReadonlyMap<string, number>,
  leakedByRun: ReadonlyMap<string, number>,
  leakedByLease: ReadonlyMap<string, number>,
  listeningOf?: ListeningLookup,
): LeaseView {
  const runs = lease.runs.map((record) => buildRunView(record, cpu, leakedByRun.get(record.id) ?? 0, listeningOf));
  const liveOf = (run: RunView) => run.processes.filter((node) => !isZombie(node)).length;
  return {
    id: lease.id,
    name: lease.name,
    holder: lease.holder === null ? null : { pid: lease.holder.pid, startTime: lease.holder.startTime },
    holderCommand: lease.holderCommand,
    holderState: lease.holderState,
    heldByThisApp: lease.heldByThisApp,
    ...(lease.guardianLost === true ? { guardianLost: true } : {}),
    createdAtMs: lease.createdAtMs,
    runs,
    liveCount: runs
      .filter((run) => run.phase !== 'ended' && !run.unsupervised)
      .reduce((sum, run) => sum + liveOf(run), 0),
    leakedCount: leakedByLease.get(lease.id) ?? 0,
  };
}

/** Agent leaks join the run leaks; a process both lists hold (a run cookie and an agent marker) is counted once. */
function withAgentLeaks(leaks: OrphanView[], agents: readonly OrphanView[]): OrphanView[] {
  const seen = new Set(leaks.map((orphan) => identityKey(orphan.process)));
  return [...leaks, ...agents.filter((orphan) => !seen.has(identityKey(orphan.process)))];
}

export function buildSnapshot(input: SnapshotInput): Snapshot {
  const leaks = withAgentLeaks(
    collectLeaks(
      input.leases.flatMap((lease) => lease.runs),
      input.orphans,
    ),
    input.agents?.orphans ?? [],
  );
  const runLease = new Map(input.leases.flatMap((lease) => lease.runs.map((run) => [run.id, lease.id] as const)));
  const leakedByRun = countBy(leaks, (orphan) => orphan.runId);
  // A leak belongs to its run's lease as shown here, else to the lease its cookie names.
  const leakedByLease = countBy(leaks, (orphan) => (orphan.runId && runLease.get(orphan.runId)) || orphan.leaseId);
  const leases = input.leases.map((lease) =>
    buildLeaseView(lease, input.cpuPercents, leakedByRun, leakedByLease, input.listeningOf),
  );
  return {
    takenAtMs: input.now,
    pollIntervalMs: input.pollIntervalMs,
    leases,
    orphans: leaks,
    counts: {
      live: leases.reduce((sum, lease) => sum + lease.liveCount, 0),
      leaked: leaks.length,
    },
    ...(input.agents === undefined ? {} : { sessions: [...input.agents.sessions] }),
    ...(input.warnings === undefined || input.warnings.length === 0 ? {} : { warnings: [...input.warnings] }),
    ...(input.capabilities === undefined ? {} : { capabilities: input.capabilities }),
    ...(input.homeDir === undefined ? {} : { homeDir: input.homeDir }),
  };
}
