/**
 * Plan a free-port: who listens on the port and the tree a kill of each listener would end, plus
 * every reason to refuse the whole plan (a protected pid, a service manager holding the port for
 * socket activation, another user's process, a holder Treewarden cannot see). Signals nothing;
 * executeFreePort (free-port.ts) carries a plan out.
 */
import { pollUntil } from '../runtime/wait.js';
import { ancestorPids } from '../signal/guards.js';
import { createTableReader } from '../table/reader.js';
import { filterTrees } from '../table/trees.js';
import type { ProcessEntry, ProcessIdentity, ProcessTable, TableReader } from '../table/types.js';
import { describeListeners, type PortRow } from './describe.js';
import { createPortReader } from './reader.js';
import type { NetSocket, PortListener, PortProto, PortReader } from './types.js';

/** Poll interval while waiting for the kernel to drop a socket (here and in free-port.ts). */
export const PORT_POLL_MS = 50;
/** How long a listening socket nobody visible holds may take to go before it counts as held. */
export const HIDDEN_SETTLE_MS = 1_000;
export const MIN_PORT = 1;
export const MAX_PORT = 65_535;

export interface FreePortTarget {
  readonly identity: ProcessIdentity;
  /** The tree a kill of this listener would end (the listener first), as read for the preview. */
  readonly tree: readonly ProcessEntry[];
}

export interface FreePortPlan {
  readonly port: number;
  readonly proto: PortProto;
  readonly listeners: readonly PortRow[];
  /** Listener processes whose tree is not already inside another target's tree. */
  readonly targets: readonly FreePortTarget[];
  /** Why nothing may be signalled; empty when the plan may run. */
  readonly refusals: readonly string[];
}

export interface FreePortOptions {
  readonly ports?: PortReader;
  readonly table?: TableReader;
  readonly graceMs?: number;
}

export class PortRangeError extends Error {
  override readonly name = 'PortRangeError';
}

export function assertPort(port: number): number {
  if (!Number.isInteger(port) || port < MIN_PORT || port > MAX_PORT)
    throw new PortRangeError(`port ${port} is not a port number (an integer from ${MIN_PORT} to ${MAX_PORT})`);
  return port;
}

/**
 * Service managers hold sockets for socket activation (`systemd --user`, launchd): ending one
 * would end every service it runs. Matched on the kernel's short command name.
 */
export const SERVICE_MANAGER_COMMANDS: ReadonlySet<string> = new Set(['systemd', 'launchd', 'init']);

function ownUid(): number | null {
  return typeof process.getuid === 'function' ? process.getuid() : null;
}

/** Refusals for one target's tree: protected pids, service managers and other users' members. */
function refusalsFor(target: FreePortTarget): string[] {
  const { pid } = target.identity;
  const refusals: string[] = [];
  if (pid <= 1 || pid === process.pid || ancestorPids().has(pid))
    refusals.push(`pid ${pid} listens on the port but is protected (pid 0/1, Treewarden itself or its ancestor)`);
  const uid = ownUid();
  for (const member of target.tree) {
    if (SERVICE_MANAGER_COMMANDS.has(member.command))
      refusals.push(
        `pid ${member.pid} (${member.command}) is a service manager holding the port for socket activation; stop its socket unit instead`,
      );
    if (uid !== null && member.uid >= 0 && member.uid !== uid)
      refusals.push(`EPERM: pid ${member.pid} belongs to uid ${member.uid}, not to this user (uid ${uid})`);
  }
  return refusals;
}

function planTargets(listeners: readonly PortListener[], table: ProcessTable): FreePortTarget[] {
  const pids = [...new Set(listeners.map((listener) => listener.pid))];
  const trees = new Map(pids.map((pid) => [pid, [...filterTrees(table, [pid]).entries.values()]]));
  // A listener inside another listener's tree (a forked worker sharing the socket) is ended with it.
  const covered = (pid: number) => pids.some((other) => other !== pid && trees.get(other)?.some((e) => e.pid === pid));
  const targets: FreePortTarget[] = [];
  for (const listener of listeners) {
    if (covered(listener.pid) || targets.some((t) => t.identity.pid === listener.pid)) continue;
    const tree = trees.get(listener.pid) ?? [];
    // The table read came after the port read: a pid now started at another time is not the listener.
    if (tree[0]?.startTime !== listener.startTime) continue;
    targets.push({ identity: { pid: listener.pid, startTime: listener.startTime }, tree });
  }
  return targets;
}

/**
 * The listeners on the port and the listening sockets nobody visible holds. A socket of a process
 * that just died can outlive its table entry for a moment (the leader thread shows as a zombie
 * while the other threads still hold the fd table), so hidden sockets get HIDDEN_SETTLE_MS to go.
 */
async function readPortHolders(port: number, proto: PortProto, ports: PortReader) {
  let holders: { listeners: PortListener[]; hidden: NetSocket[] } = { listeners: [], hidden: [] };
  await pollUntil(
    async () => {
      const map = await ports.readAll();
      if (map === null)
        throw new Error('no port map could be read (a socket table or lsof failed); nothing was signalled');
      holders = {
        listeners: map.listeners.filter(onPort(port, proto)),
        hidden: map.unattributed.filter(onPort(port, proto)),
      };
      return holders.hidden.length === 0 || holders.listeners.length > 0;
    },
    { deadlineMs: HIDDEN_SETTLE_MS, intervalMs: PORT_POLL_MS },
  );
  return holders;
}

/** Reads who listens on `port` and the trees a kill would end. Signals nothing. */
export async function planFreePort(
  port: number,
  proto: PortProto,
  options: FreePortOptions = {},
): Promise<FreePortPlan> {
  assertPort(port);
  const { listeners, hidden } = await readPortHolders(port, proto, options.ports ?? createPortReader());
  const table = listeners.length === 0 ? null : await (options.table ?? createTableReader()).readAll();
  if (listeners.length > 0 && table === null) throw new Error('no process table could be read; nothing was signalled');
  const targets = table === null ? [] : planTargets(listeners, table);
  const refusals = targets.flatMap(refusalsFor);
  for (const socket of hidden)
    refusals.push(`${socket.address}:${socket.port} is held by a process Treewarden cannot inspect (another user's?)`);
  const rows = table === null ? [] : describeListeners(listeners, (pid) => table.entries.get(pid) ?? null);
  return { port, proto, listeners: rows, targets, refusals };
}

export function onPort(port: number, proto: PortProto) {
  return (socket: Pick<NetSocket, 'port' | 'proto'>) => socket.port === port && socket.proto === proto;
}
