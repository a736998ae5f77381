/**
 * macOS (and BSD) port reader: a bounded `lsof` for listening TCP sockets and one for UDP sockets,
 * parsed from its field output (`-F pcnt`: `p` pid, `c` command, `f` fd, `t` IPv4/IPv6, `n` name),
 * then joined with the bounded `ps` table for identities. lsof reports no start time, so a pid
 * whose process started after lsof ran is a recycled pid and is dropped, never attributed.
 */
import { readDarwinTable } from '../table/darwin-ps.js';
import {
  type BoundedInspectorOptions,
  runBoundedInspector,
  type SpawnInspector,
  spawnCommand,
} from '../table/inspector.js';
import type { ProcessTable } from '../table/types.js';
import {
  type AddressFamily,
  type PortListener,
  type PortMap,
  type PortProto,
  type PortReader,
  sortListeners,
} from './types.js';

export const LSOF_TCP_ARGS = ['-nP', '-iTCP', '-sTCP:LISTEN', '-F', 'pcnt'] as const;
export const LSOF_UDP_ARGS = ['-nP', '-iUDP', '-F', 'pcnt'] as const;
/** lsof exits 1 when no file matched: with empty output that means "no sockets", not a failure. */
const LSOF_NOTHING_FOUND = [1];

/** A socket lsof printed, before the identity join. */
export interface LsofSocket {
  readonly pid: number;
  readonly proto: PortProto;
  readonly family: AddressFamily;
  readonly address: string;
  readonly port: number;
}

/** `*:3000`, `127.0.0.1:3000`, `[::1]:3000`; null for `*:*`, a connected socket (`a->b`) or junk. */
export function parseLsofName(name: string, type: string | undefined): Omit<LsofSocket, 'pid' | 'proto'> | null {
  if (name.includes('->')) return null;
  const match = /^(\[[0-9A-Fa-f:.%\w]*\]|[^:\s]+):(\d+)$/.exec(name);
  if (match === null) return null;
  const [, host = '', portText = ''] = match;
  const port = Number(portText);
  if (port < 1 || port > 65_535) return null;
  const bracketed = host.startsWith('[');
  const family: AddressFamily = bracketed || type === 'IPv6' ? 6 : 4;
  const bare = bracketed ? host.slice(1, -1) : host;
  const address = bare === '*' ? (family === 6 ? '::' : '0.0.0.0') : bare;
  return { family, address, port };
}

/** Parses `lsof -F pcnt` output, or null when a line is not a field lsof prints. */
export function parseLsofFields(text: string, proto: PortProto): LsofSocket[] | null {
  const sockets: LsofSocket[] = [];
  let pid: number | null = null;
  let type: string | undefined;
  for (const line of text.split('\n')) {
    if (line.length === 0) continue;
    const field = line.charAt(0);
    const value = line.slice(1);
    if (field === 'p') {
      if (!/^\d+$/.test(value)) return null;
      pid = Number(value);
    } else if (field === 'f')
      type = undefined; // a new file of the same process
    else if (field === 't') type = value;
    else if (field === 'n') {
      if (pid === null) return null;
      const socket = parseLsofName(value, type);
      if (socket !== null) sockets.push({ pid, proto, ...socket });
    } else if (pid === null || !/^[a-zA-Z]$/.test(field)) return null; // lsof starts every process with its p line
  }
  return sockets;
}

/** Keeps the sockets of processes that existed when lsof started, each with its identity. */
export function joinLsofWithTable(
  sockets: readonly LsofSocket[],
  table: ProcessTable,
  lsofStartedAtMs: number,
): PortListener[] {
  const listeners: PortListener[] = [];
  for (const socket of sockets) {
    const entry = table.entries.get(socket.pid);
    if (entry === undefined || entry.startedAtMs > lsofStartedAtMs) continue;
    listeners.push({ ...socket, startTime: entry.startTime, inode: null });
  }
  return listeners;
}

export interface DarwinPortOptions extends BoundedInspectorOptions {
  /** Runs lsof with the given arguments (tests inject captured output); defaults to /usr/sbin/lsof. */
  readonly spawnLsof?: (args: readonly string[]) => SpawnInspector;
  readonly readTable?: () => Promise<ProcessTable | null>;
}

async function runLsof(args: readonly string[], proto: PortProto, options: DarwinPortOptions) {
  const spawnLsof = options.spawnLsof ?? ((argv) => spawnCommand('/usr/sbin/lsof', argv));
  const output = await runBoundedInspector(spawnLsof(args), { ...options, nothingFoundExitCodes: LSOF_NOTHING_FOUND });
  return output === null ? null : parseLsofFields(output, proto);
}

export async function readDarwinPortMap(
  pids: readonly number[] | 'all',
  options: DarwinPortOptions = {},
): Promise<PortMap | null> {
  const startedAtMs = Date.now();
  const [tcp, udp] = await Promise.all([
    runLsof(LSOF_TCP_ARGS, 'tcp', options),
    runLsof(LSOF_UDP_ARGS, 'udp', options),
  ]);
  if (tcp === null || udp === null) return null;
  const table = await (options.readTable ?? (() => readDarwinTable(options)))();
  if (table === null) return null;
  const wanted = pids === 'all' ? null : new Set(pids);
  const sockets = [...tcp, ...udp].filter((socket) => wanted === null || wanted.has(socket.pid));
  const listeners = joinLsofWithTable(sockets, table, startedAtMs);
  // lsof lists only what it may inspect and does not say what it skipped: count the pids dropped here.
  const kept = new Set(listeners.map((listener) => listener.pid));
  const skippedPids = new Set(sockets.map((socket) => socket.pid).filter((pid) => !kept.has(pid))).size;
  return { listeners: sortListeners(listeners), unattributed: [], skippedPids, readAtMs: Date.now() };
}

export function createDarwinPortReader(options: DarwinPortOptions = {}): PortReader {
  return {
    platform: 'darwin',
    readAll: () => readDarwinPortMap('all', options),
    readForPids: (pids) => readDarwinPortMap(pids, options),
  };
}
