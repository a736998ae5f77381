/**
 * Agent sessions, observed inside the poll worker: one engine watcher per state dir (its focused
 * per-tick read, a full table only every FULL_SCAN_INTERVAL_MS), so the host's main thread never
 * reads /proc for agents. Each tick answers the sessions as protocol rows, the leaks with their
 * evidence, and the live entries of every session process (the host turns them into tree nodes).
 */
import {
  type AgentLeak,
  type AgentWatcher,
  createAgentWatcher,
  loadAgentRules,
  markerReaderFor,
  type ProcessEntry,
  readLinuxPortMap,
  sessionRows,
} from '@treewarden/engine';
import type { AgentSessionRow, ListeningSocket } from '@treewarden/protocol';

export interface AgentScan {
  readonly rows: readonly AgentSessionRow[];
  readonly leaks: readonly AgentLeak[];
  /** Live roots, members and leaked processes of the rows, by pid (same read as the rows). */
  readonly entries: ReadonlyMap<number, ProcessEntry>;
  readonly readAtMs: number;
  /** Sockets each dev server listens on, by identity key; only dev-server members' sockets are read. */
  readonly listening: ReadonlyMap<string, readonly ListeningSocket[]>;
  /** Rule files or remembered records skipped, with why. */
  readonly problems: readonly { readonly file: string; readonly message: string }[];
}

const watchers = new Map<string, AgentWatcher>();

function watcherFor(stateDir: string): AgentWatcher {
  let watcher = watchers.get(stateDir);
  if (watcher === undefined) {
    const loaded = loadAgentRules(stateDir);
    watcher = createAgentWatcher({
      stateRoot: stateDir,
      rules: loaded.rules,
      rulesProblems: loaded.problems,
      readMarkers: markerReaderFor(loaded.rules),
    });
    watchers.set(stateDir, watcher);
  }
  return watcher;
}

/** Only what the rows name travels back to the host: a focused table is small, a full one is not. */
function sessionEntries(
  rows: readonly AgentSessionRow[],
  leaks: readonly AgentLeak[],
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
  return entries;
}

/** A dev server's sockets (Linux; elsewhere none): one socket-table read per tick, only when a dev server lives. */
function devServerSockets(
  rows: readonly AgentSessionRow[],
  entries: ReadonlyMap<number, ProcessEntry>,
): Map<string, ListeningSocket[]> {
  const pids = rows.flatMap((row) =>
    row.members.filter((member) => member.role === 'dev-server' && entries.has(member.pid)).map((member) => member.pid),
  );
  const sockets = new Map<string, ListeningSocket[]>();
  if (process.platform !== 'linux' || pids.length === 0) return sockets;
  for (const { pid, startTime, proto, address, port } of readLinuxPortMap(pids)?.listeners ?? []) {
    const key = `${pid}:${startTime}`;
    sockets.set(key, [...(sockets.get(key) ?? []), { proto, address, port }]);
  }
  return sockets;
}

export function observeAgents(stateDir: string): AgentScan {
  const { observation } = watcherFor(stateDir).tick();
  const rows = sessionRows(observation.sessions, observation.live, observation.leaks);
  const entries = sessionEntries(rows, observation.leaks, observation.table.entries);
  return {
    rows,
    leaks: observation.leaks,
    entries,
    listening: devServerSockets(rows, entries),
    readAtMs: observation.table.readAtMs,
    problems: observation.problems.map(({ file, message }) => ({ file, message })),
  };
}
