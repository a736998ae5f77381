/**
 * The real engine behind the host's port: leases with guardians, the revalidated tree kill (each
 * kill recorded in the ledger), the lease registry, the ledger's history, orphans and scenarios.
 */
import {
  type KillOutcome,
  killTree,
  type ProcessEntry,
  type ProcessIdentity,
  readProcEntry,
  type SignalName,
} from '@treewarden/engine';
import {
  createLeaseFileCache,
  isIdentityAlive,
  type LeaseRegistryRead,
  type LeaseStatus,
  readLeaseRegistry,
} from '@treewarden/engine/lease/index';
import { appendLedgerRecord, readLedger, summarizeRuns } from '@treewarden/engine/ledger/index';
import { listScenarios } from '@treewarden/engine/scenarios/index';
import { ensureStateDir, isStateDirError, resolveStateDir, type StatePaths } from '@treewarden/engine/state/index';
import type { Classification, HistoryEntry, HolderState } from '@treewarden/protocol';
import { openHostLease } from './lease-binding.js';
import type { EnginePort, ForeignLease, ForeignRun, KillRequest } from './port.js';

/** Leases that ended longer ago than this are history (the ledger), not sidebar entries. */
export const ENDED_LEASE_VISIBLE_MS = 10 * 60_000;

export interface EnginePortOptions {
  /** State dir (ledger, leases, run dirs); default `$TREEWARDEN_HOME`, then XDG state. */
  readonly stateDir?: string;
}

const HOLDER_STATES: Record<LeaseStatus['state'], HolderState> = {
  held: 'alive',
  holder_dead: 'dead',
  released: 'released',
  ended: 'dead',
};

function epochOf(iso: string | undefined | null): number | null {
  if (iso === undefined || iso === null) return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
}

/** Reads each pid once per listing: the liveness probe and the holder's command need the same entry. */
function createEntryMemo(): (pid: number) => ProcessEntry | null {
  const entries = new Map<number, ProcessEntry | null>();
  return (pid) => {
    if (!entries.has(pid)) entries.set(pid, readProcEntry(pid));
    return entries.get(pid) ?? null;
  };
}

function toForeignLease(status: LeaseStatus, readEntry: (pid: number) => ProcessEntry | null): ForeignLease {
  const { lease } = status;
  const holder = status.holderAlive ? readEntry(lease.holder.pid) : null;
  return {
    id: lease.id,
    name: lease.name,
    holder: lease.holder,
    holderCommand: holder?.args.join(' ') || `pid ${lease.holder.pid} (exited)`,
    holderState: HOLDER_STATES[status.state],
    createdAtMs: epochOf(lease.createdAt) ?? 0,
    runs: lease.runs.map(
      (run): ForeignRun => ({
        runId: run.runId,
        command: run.command,
        cwd: run.runDir,
        root: run.pid !== null && run.startTime !== null ? { pid: run.pid, startTime: run.startTime } : null,
        startedAtMs: epochOf(run.startedAt) ?? 0,
        endedAtMs: epochOf(run.endedAt),
        classification: (run.classification as Classification | undefined) ?? null,
        timeoutSeconds: null,
      }),
    ),
  };
}

function isRecent(status: LeaseStatus, now: number): boolean {
  if (status.state === 'held' || status.state === 'holder_dead') return true;
  const endedAt = epochOf(status.lease.endedAt ?? status.lease.releasedAt);
  return endedAt !== null && now - endedAt < ENDED_LEASE_VISIBLE_MS;
}

function signalsOf(outcome: KillOutcome): SignalName[] {
  return [
    ...new Set(
      outcome.timeline.flatMap((step) => (step.action === 'SIGTERM' || step.action === 'SIGKILL' ? [step.action] : [])),
    ),
  ];
}

function recordKill(paths: StatePaths, target: ProcessIdentity, request: KillRequest, outcome: KillOutcome): void {
  appendLedgerRecord(
    paths.ledgerFile,
    {
      kind: 'kill',
      ...(request.runId === undefined ? {} : { runId: request.runId }),
      reason: request.reason,
      target: { pid: target.pid, startTime: target.startTime },
      result: outcome.result,
      signals: signalsOf(outcome),
      pids: [...new Set(outcome.timeline.flatMap((step) => step.pids ?? []))],
      killed: outcome.killed,
      survivors: outcome.survivors,
      attempts: outcome.attempts,
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
    },
    { role: 'app', pid: process.pid },
  );
}

function toHistoryEntry(entry: ReturnType<typeof summarizeRuns>[number]): HistoryEntry {
  return {
    runId: entry.runId,
    leaseId: entry.leaseId,
    command: [entry.command ?? '?', ...entry.args].join(' '),
    startedAtMs: epochOf(entry.startedAt) ?? 0,
    endedAtMs: epochOf(entry.endedAt),
    classification: entry.classification,
    exitCode: entry.exitCode,
    survivors: entry.survivors,
  };
}

/**
 * Reads the registry for a poll tick without ever failing it: a bad lease file is skipped by the
 * engine and a state dir that stopped being private reads as no foreign leases. Each distinct
 * problem is warned about once (the snapshot has no field for it yet), not on every tick.
 */
function createRegistryReader(paths: StatePaths): (probe: (identity: ProcessIdentity) => boolean) => LeaseStatus[] {
  const leaseFiles = createLeaseFileCache();
  const warned = new Set<string>();
  const warnOnce = (message: string) => {
    if (warned.has(message)) return;
    warned.add(message);
    process.emitWarning(`treewarden host: ${message}`);
  };
  return (probe) => {
    let read: LeaseRegistryRead;
    try {
      read = readLeaseRegistry(paths, probe, leaseFiles);
    } catch (error) {
      if (!isStateDirError(error)) throw error;
      warnOnce(error.message);
      return [];
    }
    for (const { path, problem } of read.problems) warnOnce(`skipped lease file ${path}: ${problem}`);
    return read.leases;
  };
}

export function createEnginePort(options: EnginePortOptions = {}): EnginePort {
  const paths = ensureStateDir(options.stateDir ?? resolveStateDir());
  // Listed on every poll: unchanged lease files are not re-read and re-parsed each time.
  const readLeases = createRegistryReader(paths);
  return {
    openLease: (name) => openHostLease(name, paths.root),
    async killTree(target, request) {
      const outcome = await killTree(target, {
        reader: request.reader,
        ...(request.runId === undefined ? {} : { runId: request.runId }),
        ...(request.graceMs === undefined ? {} : { graceMs: request.graceMs }),
      });
      recordKill(paths, target, request, outcome);
      return outcome;
    },
    listForeignLeases(ownLeaseIds) {
      const now = Date.now();
      const readEntry = createEntryMemo();
      return readLeases((identity) => isIdentityAlive(identity, readEntry))
        .filter((status) => !ownLeaseIds.has(status.lease.id) && isRecent(status, now))
        .map((status) => toForeignLease(status, readEntry));
    },
    async findOrphans(reader) {
      const scan = await reader.scanOrphans(paths.root);
      if (scan === null) return [];
      return scan.groups.flatMap((group) =>
        group.members.map((member) => ({
          process: member.entry,
          runId: member.runId ?? group.runId,
          leaseId: member.leaseId ?? group.leaseId,
          reasons: [group.why, ...member.reasons],
        })),
      );
    },
    listScenarios: () =>
      listScenarios().map(({ bounds: _bounds, naiveStrategy: _naive, ...info }) => ({
        ...info,
        expected: { ...info.expected },
      })),
    readHistory(limit) {
      const entries = summarizeRuns(readLedger(paths.ledgerFile).records);
      return entries.slice(-limit).reverse().map(toHistoryEntry);
    },
  };
}
