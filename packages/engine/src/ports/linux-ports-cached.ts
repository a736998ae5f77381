/**
 * The whole machine's port map, read again every few seconds by a view that shows it, without
 * listing every process's fds each time. A full read lists every `/proc/PID/fd` and readlinks
 * every fd (~20,000 readlinks at ~1,000 processes); this reader does that once, then per read:
 *
 * - a pid it has not scanned at this start time (new, or recycled) is scanned in full;
 * - a pid it saw listening is checked by readlinking just the fds it listened on: the same
 *   `socket:[INODE]` there means it still holds them, anything else scans it in full;
 * - a listening socket no scanned process holds, and that no full read left unattributed either,
 *   means an older process started listening: the read becomes a full one.
 *
 * What it can miss between full reads (FULL_READ_INTERVAL_MS): an old process handed an existing
 * listening socket (SCM_RIGHTS, pidfd_getfd), or one that closed its copy of a socket others
 * still hold. It serves views only; commands that act on a port (free-port) read exactly.
 */
import { readlinkSync } from 'node:fs';
import {
  LINUX_PORT_SOURCES,
  type LinuxPortSources,
  readLinuxPortMap,
  readListeningSockets,
  readSocketFds,
} from './linux-ports.js';
import { type NetSocket, type PortListener, type PortMap, type PortReader, sortListeners } from './types.js';

/**
 * A full read at least this often, whatever the checks say: the backstop for what they miss.
 * 60 s, not the 30 it was: at ~1,000 processes a full read readlinks every fd (~50 ms here), and
 * every 30 s that was a sixth of an idle serve's poll worker; what only it shows is rare (above).
 */
export const FULL_READ_INTERVAL_MS = 60_000;

/** The fds of one process that are sockets, with their inodes; throws when the fd dir is unreadable. */
export type SocketFdReader = (pid: number) => { readonly fd: number; readonly inode: number }[];

function stillHolds(pid: number, fd: number, inode: number): boolean {
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`;
  } catch {
    return false;
  }
}

/** What one process was seen listening on, by fd, at its start time. */
interface Seen {
  readonly startTime: string;
  readonly listening: readonly { readonly fd: number; readonly inode: number }[];
}

export interface CachedPortReaderOptions {
  readonly sources?: LinuxPortSources;
  readonly socketFdsOf?: SocketFdReader;
  readonly now?: () => number;
  readonly fullReadIntervalMs?: number;
  /**
   * The start time of a pid from a table the caller read moments ago (the view's own poll), or
   * undefined: saves a stat read per process, in full reads too. A pid recycled since that table
   * is then taken for the old process until the caller's next table; what a scan finds listening
   * is still checked against a fresh read before it is kept.
   */
  readonly startTimeHint?: (pid: number) => string | undefined;
  /**
   * The pids of that table, or undefined: a read between full ones scans them instead of listing
   * /proc (~1–2 ms at ~1,000 processes, every PORT_READ_INTERVAL_MS). A process started since
   * is scanned at the first read after the caller's next table; if it listens meanwhile, its
   * socket is one no scanned process holds, and the read becomes a full one, which lists /proc.
   */
  readonly pidsHint?: () => Iterable<number> | undefined;
}

export function createCachedLinuxPortReader(options: CachedPortReaderOptions = {}): PortReader {
  const sources = options.sources ?? LINUX_PORT_SOURCES;
  const socketFdsOf = options.socketFdsOf ?? readSocketFds;
  const now = options.now ?? Date.now;
  const fullEveryMs = options.fullReadIntervalMs ?? FULL_READ_INTERVAL_MS;
  const firstLook = (pid: number) => options.startTimeHint?.(pid) ?? sources.startTimeOf(pid);
  let seen = new Map<number, Seen>();
  /** Listening sockets the last full read found no holder for (another namespace, unreadable fds). */
  let unheldAfterFull = new Set<number>();
  let lastFullAtMs = Number.NEGATIVE_INFINITY;

  function read(sockets: ReadonlyMap<number, NetSocket>, full: boolean): PortMap {
    const next = new Map<number, Seen>();
    const listeners: PortListener[] = [];
    const held = new Set<number>();
    let skippedPids = 0;
    for (const pid of (full ? undefined : options.pidsHint?.()) ?? sources.listPids()) {
      // A full read too: a stale hint (the pid recycled since that table) can only make a holder
      // fail the check below and be skipped for this read, never name another process.
      const startTime = firstLook(pid);
      if (startTime === null) {
        skippedPids += 1;
        continue;
      }
      const before = seen.get(pid);
      // Most processes listen on nothing and are the same process as last time: nothing to check,
      // and their record is kept as it was (a read every 2 s at ~1,000 processes made ~2,000
      // short-lived objects for them).
      if (!full && before !== undefined && before.startTime === startTime && before.listening.length === 0) {
        next.set(pid, before);
        continue;
      }
      let listening: { fd: number; inode: number }[] | null = null;
      if (!full && before?.startTime === startTime) {
        const kept = before.listening.filter(({ inode }) => sockets.has(inode));
        if (kept.every(({ fd, inode }) => stillHolds(pid, fd, inode))) listening = kept;
      }
      if (listening === null) {
        try {
          listening = socketFdsOf(pid).filter(({ inode }) => sockets.has(inode));
        } catch {
          skippedPids += 1;
          continue;
        }
        // The fds read may be another process's that took the pid meanwhile: check before keeping
        // what it holds. A process holding no listener needs no check (most of a full read's
        // stat reads): kept as holding none under a start time that is not its own, it is
        // scanned again as soon as a table names its own (firstLook differs then).
        if (listening.length > 0 && sources.startTimeOf(pid) !== startTime) {
          skippedPids += 1;
          continue;
        }
      }
      next.set(pid, { startTime, listening });
      for (const { inode } of listening) {
        const socket = sockets.get(inode);
        if (socket === undefined) continue;
        const { port, proto, family, address } = socket;
        listeners.push({ port, proto, family, address, pid, startTime, inode });
        held.add(inode);
      }
    }
    seen = next;
    const unattributed = [...sockets.values()].filter((socket) => !held.has(socket.inode));
    return { listeners: sortListeners(listeners), unattributed, skippedPids, readAtMs: now() };
  }

  async function readAll(): Promise<PortMap | null> {
    const sockets = readListeningSockets(sources);
    if (sockets === null) return null;
    const startedAtMs = now();
    let full = startedAtMs - lastFullAtMs >= fullEveryMs;
    let map = read(sockets, full);
    if (!full && map.unattributed.some((socket) => !unheldAfterFull.has(socket.inode))) {
      full = true;
      map = read(sockets, true);
    }
    if (full) {
      lastFullAtMs = startedAtMs;
      unheldAfterFull = new Set(map.unattributed.map((socket) => socket.inode));
    }
    return map;
  }

  // A run's few pids are read exactly every time: cheap, and what a command acts on.
  return { platform: 'linux', readAll, readForPids: async (pids) => readLinuxPortMap(pids, sources) };
}
