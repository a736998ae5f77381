/**
 * Linux port reader: the socket tables read once (listening TCP through netlink sock_diag when it
 * answers, else `/proc/net/tcp{,6}`; bound UDP from `/proc/net/udp{,6}`), joined with
 * the socket inodes found under `/proc/PID/fd` (`socket:[INODE]`). A read for one run's tree
 * scans only those pids' fd dirs; the full map scans every pid. A process whose fd dir cannot be
 * read (another user's, or gone) or whose start time changed during the scan is skipped and
 * counted, never fatal and never misattributed.
 */
import { readFileSync } from 'node:fs';
import { type FdLink, readFdLinks } from '../table/fd-links.js';
import { listPids, readStatFields } from '../table/linux-stat.js';
import { isListeningSocket, type NetTableKind, parseProcNet } from './linux-net.js';
import { readTcpListenersNetlink } from './linux-sock-diag.js';
import { type NetSocket, type PortListener, type PortMap, type PortReader, sortListeners } from './types.js';

const NET_TABLES: readonly (NetTableKind & { readonly file: string })[] = [
  { file: 'tcp', proto: 'tcp', family: 4 },
  { file: 'tcp6', proto: 'tcp', family: 6 },
  { file: 'udp', proto: 'udp', family: 4 },
  { file: 'udp6', proto: 'udp', family: 6 },
];
const SOCKET_LINK = /^socket:\[(\d+)\]$/;

/** Injectable file access, so tests can reproduce unreadable fd dirs when running as root. */
export interface LinuxPortSources {
  /** Listening TCP sockets from netlink sock_diag; null sends the read to /proc/net/tcp{,6}. */
  readonly readTcpListeners: () => NetSocket[] | null;
  readonly readNetTable: (file: string) => string | null;
  /** Socket inodes held by `pid`; throws when its fd dir cannot be read. */
  readonly socketInodes: (pid: number) => number[];
  readonly startTimeOf: (pid: number) => string | null;
  readonly listPids: () => number[];
}

/** A table file's text; null when the file does not exist (IPv6 disabled), thrown otherwise. */
function readNetTable(file: string): string | null {
  try {
    return readFileSync(`/proc/net/${file}`, 'latin1');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** The sockets among a listing of fds, with their inodes. */
export function socketFdsOf(links: readonly FdLink[]): { fd: number; inode: number }[] {
  const found: { fd: number; inode: number }[] = [];
  for (const { fd, target } of links) {
    const match = SOCKET_LINK.exec(target);
    if (match !== null) found.push({ fd: Number(fd), inode: Number(match[1]) });
  }
  return found;
}

/** The fds of one process that are sockets, with their inodes; throws when the fd dir is unreadable. */
export function readSocketFds(pid: number): { fd: number; inode: number }[] {
  const links = readFdLinks(pid);
  if (links === null) throw new Error(`/proc/${pid}/fd cannot be read`);
  return socketFdsOf(links);
}

const socketInodes = (pid: number): number[] => readSocketFds(pid).map(({ inode }) => inode);

export const LINUX_PORT_SOURCES: LinuxPortSources = {
  readTcpListeners: readTcpListenersNetlink,
  readNetTable,
  socketInodes,
  startTimeOf: (pid) => readStatFields(pid)?.startTicks ?? null,
  listPids,
};

/** Listening sockets by inode, or null when a table is unreadable or not understood. */
export function readListeningSockets(sources: LinuxPortSources = LINUX_PORT_SOURCES): Map<number, NetSocket> | null {
  const byInode = new Map<number, NetSocket>();
  const tcp = sources.readTcpListeners();
  for (const socket of tcp ?? []) if (isListeningSocket(socket)) byInode.set(socket.inode, socket);
  for (const kind of NET_TABLES) {
    if (kind.proto === 'tcp' && tcp !== null) continue;
    let text: string | null;
    try {
      text = sources.readNetTable(kind.file);
    } catch {
      return null;
    }
    if (text === null) continue;
    const sockets = parseProcNet(text, kind);
    if (sockets === null) return null;
    for (const socket of sockets) if (isListeningSocket(socket)) byInode.set(socket.inode, socket);
  }
  return byInode;
}

/** The listeners `pid` holds, or null when it must be skipped (unreadable, gone, or recycled mid-scan). */
function listenersOf(pid: number, sockets: ReadonlyMap<number, NetSocket>, sources: LinuxPortSources) {
  const startTime = sources.startTimeOf(pid);
  if (startTime === null) return null;
  let inodes: number[];
  try {
    inodes = sources.socketInodes(pid);
  } catch {
    return null;
  }
  const listeners: PortListener[] = [];
  for (const inode of inodes) {
    const socket = sockets.get(inode);
    if (socket === undefined) continue;
    const { port, proto, family, address } = socket;
    listeners.push({ port, proto, family, address, pid, startTime, inode });
  }
  // The fds read may belong to a process that took over the pid during the scan: check again
  // before attributing anything (nothing to attribute, nothing to check: most pids of a full map).
  if (listeners.length > 0 && sources.startTimeOf(pid) !== startTime) return null;
  return listeners;
}

/** Joins the socket tables with the fds of `pids`; `full` also reports sockets nobody scanned holds. */
export function readLinuxPortMap(
  pids: readonly number[] | 'all',
  sources: LinuxPortSources = LINUX_PORT_SOURCES,
): PortMap | null {
  const sockets = readListeningSockets(sources);
  if (sockets === null) return null;
  const listeners: PortListener[] = [];
  const held = new Set<number>();
  let skippedPids = 0;
  for (const pid of pids === 'all' ? sources.listPids() : new Set(pids)) {
    const found = listenersOf(pid, sockets, sources);
    if (found === null) {
      skippedPids += 1;
      continue;
    }
    for (const listener of found) {
      listeners.push(listener);
      if (listener.inode !== null) held.add(listener.inode);
    }
  }
  const unattributed = pids === 'all' ? [...sockets.values()].filter((socket) => !held.has(socket.inode)) : [];
  return { listeners: sortListeners(listeners), unattributed, skippedPids, readAtMs: Date.now() };
}

export function createLinuxPortReader(sources: LinuxPortSources = LINUX_PORT_SOURCES): PortReader {
  return {
    platform: 'linux',
    readAll: async () => readLinuxPortMap('all', sources),
    readForPids: async (pids) => readLinuxPortMap(pids, sources),
  };
}
