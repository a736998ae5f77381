/**
 * The real engine behind the host's port: leases with guardians, the revalidated tree kill (each
 * kill recorded in the ledger), the lease registry, the ledger's history, orphans and scenarios.
 */
import {
  appendLedgerRecord,
  capabilityWarnings,
  cleanAgentLeaks,
  cleanContainerLeftovers,
  containerLeftovers,
  createLeaseFileCache,
  defaultActor,
  ensureStateDir,
  findEngineSocket,
  isIdentityAlive,
  isInsideDir,
  isStateDirError,
  type KillOutcome,
  killTree,
  type LeaseRegistryRead,
  type LeaseStatus,
  type LedgerActor,
  loadAgentRules,
  type ProcessEntry,
  type ProcessIdentity,
  type RunStartRecord,
  readLeaseRegistry,
  readLedger,
  readNativeCapabilities,
  readProcEntry,
  readSessionContainers,
  readSessions,
  resolveStateDir,
  type StatePaths,
  settleEndedRuns,
  signalsSent,
  stopWithAgent,
  summarizeRuns,
  trimAlerts,
} from '@treewarden/engine';
import type { Classification, HistoryEntry, HolderState } from '@treewarden/protocol';
import { findScenario, isPaceable, listScenarios } from '@treewarden/scenarios';
import { openHostLease } from './lease-binding.js';
import { recentActivity } from './ledger-activity.js';
import { createLedgerRuns, type LedgerRun, type LedgerRuns } from './ledger-runs.js';
import type { EnginePort, ForeignLease, ForeignRun, KillRequest, RunEnd } from './port.js';
import { enforcementOf, probeCgroupCapability } from './run-enforcement.js';

/** Leases that ended longer ago than this are history (the ledger), not sidebar entries. */
export const ENDED_LEASE_VISIBLE_MS = 10 * 60_000;

export interface EnginePortOptions {
  /** State dir (ledger, leases, run dirs); default `$TREEWARDEN_HOME`, then XDG state. */
  readonly stateDir?: string;
  /**
   * Base environment of the lease's guardian and of every run it starts (each run's own variables
   * go on top); default this process's. The desktop app passes the user's environment without
   * its packaging artefacts (AppImage, Electron).
   */
  readonly runEnvironment?: Readonly<Record<string, string>>;
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

type LeaseRunInfo = LeaseStatus['lease']['runs'][number];

/** How the run ended: the lease file's word when its guardian wrote one, else the ledger's (anyone's). */
function endOf(run: LeaseRunInfo, ledger: LedgerRun | undefined): RunEnd | null {
  const end = ledger?.end;
  const endedAtMs = epochOf(run.endedAt) ?? epochOf(end?.at);
  if (endedAtMs === null) return null;
  return {
    endedAtMs,
    classification: (run.classification as Classification | undefined) ?? end?.classification ?? null,
    exitCode: end?.exitCode ?? null,
    signal: end?.signal ?? null,
    reason: end?.error ?? end?.endedWithoutSupervisor ?? null,
    killedBy: end?.killedBy ?? null,
    ...(end?.limit === undefined ? {} : { limit: end.limit }),
  };
}

/** Retry starts the recorded command line again; a cwd that was the old run's private dir gets a new one. */
function retrySpecOf(paths: StatePaths, ledger: LedgerRun | undefined): ForeignRun['retrySpec'] {
  const start = ledger?.start;
  if (start === undefined) return null;
  const ownDir = isInsideDir(start.cwd, paths.runsDir);
  return {
    command: start.command,
    args: [...start.args],
    // The recorded bytes when the command line was not all text: Retry runs what ran, byte for byte.
    ...(start.argvBase64 !== undefined ? { argvBase64: [...start.argvBase64] } : {}),
    ...(ownDir ? {} : { cwd: start.cwd }),
    ...(start.timeoutSeconds !== undefined ? { timeoutSeconds: start.timeoutSeconds } : {}),
    // A run that had its own cgroup gets one again (refused before launch where none is usable now).
    ...(start.cgroup !== undefined ? { cgroup: true } : {}),
  };
}

function withEnforcement(start: RunStartRecord | undefined): Pick<ForeignRun, 'enforcement'> {
  const enforcement = enforcementOf(start);
  return enforcement === null ? {} : { enforcement };
}

function toForeignRun(paths: StatePaths, run: LeaseRunInfo, ledger: LedgerRun | undefined): ForeignRun {
  const start = ledger?.start;
  const timeoutSeconds = run.timeoutSeconds ?? start?.timeoutSeconds ?? null;
  return {
    runId: run.runId,
    command: start?.command ?? run.command,
    args: start?.args ?? [],
    retrySpec: retrySpecOf(paths, ledger),
    cwd: start?.cwd ?? run.runDir,
    root: run.pid !== null && run.startTime !== null ? { pid: run.pid, startTime: run.startTime } : null,
    startedAtMs: epochOf(run.startedAt) ?? 0,
    timeoutSeconds,
    deadlineAtMs: epochOf(run.deadlineAt) ?? epochOf(start?.deadlineAt),
    end: endOf(run, ledger),
    ...(run.kept === undefined ? {} : { kept: run.kept }),
    ...withEnforcement(start),
  };
}

function toForeignLease(
  paths: StatePaths,
  status: LeaseStatus,
  readEntry: (pid: number) => ProcessEntry | null,
  ledger: LedgerRuns,
): ForeignLease {
  const { lease } = status;
  const holder = status.holderAlive ? readEntry(lease.holder.pid) : null;
  return {
    id: lease.id,
    name: lease.name,
    holder: lease.holder,
    holderCommand: holder?.args.join(' ') || `pid ${lease.holder.pid} (exited)`,
    holderState: HOLDER_STATES[status.state],
    guardianAlive: status.guardianAlive,
    ...(lease.guardianLostAt === undefined ? {} : { guardianLost: true }),
    createdAtMs: epochOf(lease.createdAt) ?? 0,
    runs: lease.runs.map((run) => toForeignRun(paths, run, ledger.get(run.runId))),
  };
}

/**
 * A lease whose holder and guardian both died never records its own end: it stays in view until
 * every run of it has an end on record (the ledger's), then ages out like any ended lease.
 */
function lastRunEnd(lease: ForeignLease): number | null {
  const ends = lease.runs.map((run) => run.end?.endedAtMs ?? null);
  if (ends.length === 0 || ends.some((end) => end === null)) return null;
  return Math.max(...(ends as number[]));
}

function isRecent(status: LeaseStatus, lease: ForeignLease, now: number): boolean {
  if (status.state === 'held') return true;
  if (status.state === 'holder_dead') {
    if (status.guardianAlive) return true;
    const ended = lastRunEnd(lease);
    return ended === null || now - ended < ENDED_LEASE_VISIBLE_MS;
  }
  const endedAt = epochOf(status.lease.endedAt ?? status.lease.releasedAt);
  return endedAt !== null && now - endedAt < ENDED_LEASE_VISIBLE_MS;
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
      signals: signalsSent(outcome),
      pids: [...new Set(outcome.timeline.flatMap((step) => step.pids ?? []))],
      killed: outcome.killed,
      survivors: outcome.survivors,
      attempts: outcome.attempts,
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
    },
    appActor(),
  );
}

/** The app signs what it writes to the ledger with its identity, so a record says who did it. */
function appActor(): LedgerActor {
  return defaultActor('app');
}

function toHistoryEntry(entry: ReturnType<typeof summarizeRuns>[number]): HistoryEntry {
  return {
    runId: entry.runId,
    leaseId: entry.leaseId,
    command: [entry.command ?? '?', ...entry.args].join(' '),
    cwd: entry.cwd,
    startedAtMs: epochOf(entry.startedAt) ?? 0,
    endedAtMs: epochOf(entry.endedAt),
    classification: entry.classification,
    exitCode: entry.exitCode,
    survivors: entry.survivors,
    endReason: entry.error ?? entry.endedWithoutSupervisor,
    timeoutSeconds: entry.timeoutSeconds,
    killedBy: entry.killedBy,
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
  const ledgerRuns = createLedgerRuns(paths.ledgerFile);
  const warnings = capabilityWarnings(readNativeCapabilities());
  // Logged once here, and shown in the UI with every snapshot: never a silent fallback.
  for (const warning of warnings) console.warn(`treewarden: ${warning}`);
  // Once per host: the New Run form offers its own cgroup only where the engine would accept it.
  const cgroup = probeCgroupCapability();
  const runStartOf = (runId: string): RunStartRecord | undefined => {
    ledgerRuns.refresh(); // one stat while nothing was appended
    return ledgerRuns.get(runId)?.start;
  };
  return {
    stateDir: paths.root,
    warnings,
    cgroup,
    openLease: (name) => openHostLease(name, paths.root, options.runEnvironment, runStartOf),
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
      ledgerRuns.refresh();
      return readLeases((identity) => isIdentityAlive(identity, readEntry))
        .filter((status) => !ownLeaseIds.has(status.lease.id))
        .map((status) => ({ status, lease: toForeignLease(paths, status, readEntry, ledgerRuns) }))
        .filter(({ status, lease }) => isRecent(status, lease, now))
        .map(({ lease }) => lease);
    },
    async findOrphans(reader, stillAlive) {
      const scan = await reader.scanOrphans(paths.root);
      if (scan === null) return { orphans: [], settled: [] };
      const orphans = scan.groups.flatMap((group) =>
        group.members.map((member) => ({
          process: member.entry,
          runId: member.runId ?? group.runId,
          leaseId: member.leaseId ?? group.leaseId,
          kind: group.kind,
          reasons: [group.why, ...member.reasons],
        })),
      );
      const settled = settleEndedRuns(scan, { paths, actor: appActor(), stillAlive });
      return { orphans, settled };
    },
    observeAgents: (reader) => reader.observeAgents(paths.root),
    cleanAgentLeaks: (leaks) =>
      cleanAgentLeaks(leaks, {
        ledgerFile: paths.ledgerFile,
        // The agent's own stop first (a dead daemon's sessions: `claude stop ID`), then the revalidated kill.
        stopFirst: (leak) => stopWithAgent(leak, loadAgentRules(paths.root).rules),
      }),
    trimSessionAlerts: (alerts) => trimAlerts(alerts, { ledgerFile: paths.ledgerFile }),
    async findContainerLeftovers() {
      const socketPath = findEngineSocket();
      if (socketPath === null) return null;
      const { sessions } = readSessions(paths.root);
      const bySession = await readSessionContainers(paths.root, sessions, socketPath);
      return { socketPath, leftovers: containerLeftovers(bySession, sessions) };
    },
    stopContainers: (scan, leftovers, options) =>
      cleanContainerLeftovers(leftovers, {
        socketPath: scan.socketPath,
        includeWeak: options.includeWeak,
        ledgerFile: paths.ledgerFile,
        reason: 'app_container_clean',
        actor: appActor(),
        ...(options.graceSeconds === undefined ? {} : { graceSeconds: options.graceSeconds }),
      }),
    listScenarios: () =>
      listScenarios().map(({ bounds: _bounds, naiveStrategy: _naive, ...info }) => ({
        ...info,
        expected: { ...info.expected },
        paceable: isPaceable(findScenario(info.name)),
      })),
    readHistory(limit) {
      const entries = summarizeRuns(readLedger(paths.ledgerFile).records);
      return entries.slice(-limit).reverse().map(toHistoryEntry);
    },
    readActivity: (limit) => recentActivity(readLedger(paths.ledgerFile).records, limit),
  };
}
