/**
 * Agent sessions, observed inside the poll worker: one engine watcher per state dir (its focused
 * per-tick read, which also judges the processes new since the last tick, and a safety-net full
 * table only every FULL_SCAN_INTERVAL_MS), so the host's main thread never
 * reads /proc for agents. Each tick answers the sessions as protocol rows, the leaks with their
 * evidence, and the live entries of every session process (the host turns them into tree nodes).
 */
import {
  type AgentLeak,
  type AgentWatcher,
  type AlertTracker,
  alertsBySession,
  attachContainers,
  createAgentWatcher,
  createAlertTracker,
  createCachedFdReader,
  createFdListings,
  FD_READ_SPACING_MS,
  type FdLink,
  type FdListings,
  type FdUsage,
  fdUsageOf,
  type JudgedAlert,
  LINUX_PORT_SOURCES,
  type LinuxPortSources,
  loadAgentRules,
  loadAlertConfig,
  markerReaderFor,
  type ProcessEntry,
  readLinuxPortMap,
  readListeningPidsLinux,
  sessionRows,
  socketFdsOf,
} from '@treewarden/engine';
import type { AgentSessionRow, ListeningSocket } from '@treewarden/protocol';
import type { AgentScan } from '../engine/reads.js';

export type { AgentScan } from '../engine/reads.js';

/** The alert thresholds file is read again this often (a user's edit shows without a restart). */
export const ALERT_CONFIG_RELOAD_MS = 10_000;

interface Observer {
  readonly watcher: AgentWatcher;
  /** This tick's fd listings, shared by the port reads and the fd-hog alert. */
  readonly fdListings: FdListings;
  readonly portSources: LinuxPortSources;
  readonly alerts: AlertTracker;
  configReadAtMs: number;
  configProblem: { readonly file: string; readonly message: string } | undefined;
}

const observers = new Map<string, Observer>();

/** Usage from a listing; null when the fds could not be listed. */
function usageOf(pid: number, links: FdLink[] | null): FdUsage | null {
  return links === null ? null : fdUsageOf(pid, links);
}

/** The port reader's sources with each pid's fds taken from this tick's shared listings. */
function sharedPortSources(listings: FdListings): LinuxPortSources {
  return {
    ...LINUX_PORT_SOURCES,
    socketInodes(pid) {
      const links = listings.of(pid);
      if (links === null) throw new Error(`/proc/${pid}/fd cannot be read`);
      return socketFdsOf(links).map(({ inode }) => inode);
    },
  };
}

function observerFor(stateDir: string): Observer {
  let observer = observers.get(stateDir);
  if (observer === undefined) {
    const loaded = loadAgentRules(stateDir);
    const config = loadAlertConfig(stateDir);
    const fdListings = createFdListings();
    const portSources = sharedPortSources(fdListings);
    observer = {
      watcher: createAgentWatcher({
        stateRoot: stateDir,
        rules: loaded.rules,
        rulesProblems: loaded.problems,
        readMarkers: markerReaderFor(loaded.rules),
        readListeningPids: (pids) => readListeningPidsLinux(pids, portSources),
      }),
      fdListings,
      portSources,
      alerts: createAlertTracker({
        config: config.config,
        fds: createCachedFdReader(
          Date.now,
          FD_READ_SPACING_MS,
          (pid) => usageOf(pid, fdListings.of(pid)),
          (pid) => {
            const links = fdListings.readThisTick(pid);
            return links === undefined ? undefined : usageOf(pid, links);
          },
        ),
      }),
      configReadAtMs: Date.now(),
      configProblem: config.problem,
    };
    observers.set(stateDir, observer);
  }
  return observer;
}

function reloadConfig(observer: Observer, stateDir: string, now: number): void {
  if (now - observer.configReadAtMs < ALERT_CONFIG_RELOAD_MS) return;
  const loaded = loadAlertConfig(stateDir);
  observer.alerts.setConfig(loaded.config);
  observer.configProblem = loaded.problem;
  observer.configReadAtMs = now;
}

/** Only what the rows name travels back to the host: a focused table is small, a full one is not. */
function sessionEntries(
  rows: readonly AgentSessionRow[],
  leaks: readonly AgentLeak[],
  alerts: readonly JudgedAlert[],
  table: ReadonlyMap<number, ProcessEntry>,
): Map<number, ProcessEntry> {
  const entries = new Map<number, ProcessEntry>();
  const keep = (pid: number, startTime: string) => {
    const entry = table.get(pid);
    if (entry !== undefined && entry.startTime === startTime) entries.set(pid, entry);
  };
  for (const row of rows) {
    keep(row.root.pid, row.root.startTime);
    for (const member of row.members) keep(member.pid, member.startTime);
  }
  for (const leak of leaks) for (const { entry } of leak.processes) keep(entry.pid, entry.startTime);
  for (const alert of alerts) for (const entry of alert.processes) keep(entry.pid, entry.startTime);
  return entries;
}

/** A dev server's sockets (Linux; elsewhere none): one socket-table read per tick, only when a dev server lives. */
function devServerSockets(
  rows: readonly AgentSessionRow[],
  entries: ReadonlyMap<number, ProcessEntry>,
  sources: LinuxPortSources,
): Map<string, ListeningSocket[]> {
  const pids = rows.flatMap((row) =>
    row.members.filter((member) => member.role === 'dev-server' && entries.has(member.pid)).map((member) => member.pid),
  );
  const sockets = new Map<string, ListeningSocket[]>();
  if (process.platform !== 'linux' || pids.length === 0) return sockets;
  for (const { pid, startTime, proto, address, port } of readLinuxPortMap(pids, sources)?.listeners ?? []) {
    const key = `${pid}:${startTime}`;
    sockets.set(key, [...(sockets.get(key) ?? []), { proto, address, port }]);
  }
  return sockets;
}

export function observeAgents(stateDir: string): AgentScan {
  const observer = observerFor(stateDir);
  observer.fdListings.nextTick();
  const now = Date.now();
  reloadConfig(observer, stateDir, now);
  const { observation } = observer.watcher.tick(now);
  // Judged from this tick's read (the members' entries the observer already has), never a read of its own.
  const { alerts } = observer.alerts.tick(observation, now);
  // Containers come from the watcher's last listing (refreshed on engine events): no engine call in a tick.
  const rows = attachContainers(
    sessionRows(observation.sessions, observation.live, observation.leaks, alertsBySession(alerts)),
    observer.watcher.containers(),
  );
  const entries = sessionEntries(rows, observation.leaks, alerts, observation.table.entries);
  const problems = [...observation.problems, ...(observer.configProblem === undefined ? [] : [observer.configProblem])];
  return {
    rows,
    leaks: observation.leaks,
    alerts,
    entries,
    listening: devServerSockets(rows, entries, observer.portSources),
    readAtMs: observation.table.readAtMs,
    problems: problems.map(({ file, message }) => ({ file, message })),
  };
}
