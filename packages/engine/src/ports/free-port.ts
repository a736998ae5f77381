/**
 * Free a port: find the processes that listen on it, preview the trees a kill would end, then end
 * each listener's tree with the revalidated tree kill (`killTree`: identity re-check, SIGTERM,
 * freeze, SIGKILL deepest first, verify). Only listeners are targets: a process that merely holds
 * a connection to the port is never one. A port held by anyone Treewarden may not or cannot end
 * (another user, an invisible holder, a protected pid) is refused as a whole: nothing is signalled.
 */
import { killTree } from '../kill/kill-tree.js';
import type { KillOutcome } from '../kill/types.js';
import { ancestorPids } from '../signal/guards.js';
import { createTableReader } from '../table/reader.js';
import { filterTrees } from '../table/trees.js';
import type { ProcessEntry, ProcessIdentity, ProcessTable, TableReader } from '../table/types.js';
import { describeListeners, type PortRow } from './describe.js';
import { createPortReader } from './reader.js';
import type { NetSocket, PortListener, PortProto, PortReader } from './types.js';

/** How long to wait, after the kills, for the kernel to drop the port (it does so at the last close). */
export const PORT_RELEASE_WAIT_MS = 2_000;
const PORT_RELEASE_POLL_MS = 50;
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

export type FreePortResult = 'freed' | 'nothing_listening' | 'refused' | 'survivors';

export interface FreePortOutcome {
  readonly result: FreePortResult;
  readonly outcomes: readonly KillOutcome[];
  /** Listeners on the port after the kills (a supervisor outside the tree may have restarted one). */
  readonly stillListening: readonly PortListener[];
  readonly error?: string;
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

function ownUid(): number | null {
  return typeof process.getuid === 'function' ? process.getuid() : null;
}

/** Refusals for one target's tree: protected pids and other users' members. */
function refusalsFor(target: FreePortTarget): string[] {
  const { pid } = target.identity;
  const refusals: string[] = [];
  if (pid <= 1 || pid === process.pid || ancestorPids().has(pid))
    refusals.push(`pid ${pid} listens on the port but is protected (pid 0/1, Treewarden itself or its ancestor)`);
  const uid = ownUid();
  for (const member of target.tree)
    if (uid !== null && member.uid >= 0 && member.uid !== uid)
      refusals.push(`EPERM: pid ${member.pid} belongs to uid ${member.uid}, not to this user (uid ${uid})`);
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

function onPort(port: number, proto: PortProto) {
  return (socket: Pick<NetSocket, 'port' | 'proto'>) => socket.port === port && socket.proto === proto;
}

/**
 * The listeners on the port and the listening sockets nobody visible holds. A socket of a process
 * that just died can outlive its table entry for a moment (the leader thread shows as a zombie
 * while the other threads still hold the fd table), so hidden sockets get HIDDEN_SETTLE_MS to go.
 */
async function readPortHolders(port: number, proto: PortProto, ports: PortReader) {
  const deadline = Date.now() + HIDDEN_SETTLE_MS;
  for (;;) {
    const map = await ports.readAll();
    if (map === null)
      throw new Error('no port map could be read (a socket table or lsof failed); nothing was signalled');
    const listeners = map.listeners.filter(onPort(port, proto));
    const hidden = map.unattributed.filter(onPort(port, proto));
    if (hidden.length === 0 || listeners.length > 0 || Date.now() >= deadline) return { listeners, hidden };
    await sleep(PORT_RELEASE_POLL_MS);
  }
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Listeners still on the port, polled until none is left or PORT_RELEASE_WAIT_MS passed. */
async function waitForRelease(plan: FreePortPlan, ports: PortReader): Promise<PortListener[]> {
  const deadline = Date.now() + PORT_RELEASE_WAIT_MS;
  for (;;) {
    const map = await ports.readAll();
    const left =
      map === null
        ? null
        : [...map.listeners, ...map.unattributed.map(asAnonymous)].filter(onPort(plan.port, plan.proto));
    if (left !== null && left.length === 0) return [];
    if (Date.now() >= deadline) return left ?? [];
    await sleep(PORT_RELEASE_POLL_MS);
  }
}

/** A socket nobody visible holds, as a listener row with pid 0 ("unknown holder"). */
function asAnonymous(socket: NetSocket): PortListener {
  const { port, proto, family, address, inode } = socket;
  return { port, proto, family, address, pid: 0, startTime: '', inode };
}

function resultOf(outcomes: readonly KillOutcome[], stillListening: readonly PortListener[]): FreePortResult {
  if (outcomes.some((outcome) => outcome.result === 'refused')) return 'refused';
  if (outcomes.some((outcome) => outcome.result === 'kill_failed') || stillListening.length > 0) return 'survivors';
  return 'freed';
}

/**
 * Ends every target's tree with the revalidated kill, in turn. Each kill re-reads the table and
 * refuses a target whose start time changed since the preview; a refused plan signals nothing.
 */
export async function executeFreePort(plan: FreePortPlan, options: FreePortOptions = {}): Promise<FreePortOutcome> {
  if (plan.refusals.length > 0)
    return { result: 'refused', outcomes: [], stillListening: [], error: plan.refusals.join('; ') };
  if (plan.targets.length === 0) return { result: 'nothing_listening', outcomes: [], stillListening: [] };
  const outcomes: KillOutcome[] = [];
  for (const target of plan.targets) {
    outcomes.push(
      await killTree(target.identity, {
        ...(options.graceMs === undefined ? {} : { graceMs: options.graceMs }),
        // Off Linux the owner has no default reader: hand it the platform's.
        ...(process.platform === 'linux' ? {} : { reader: options.table ?? createTableReader() }),
      }),
    );
  }
  const stillListening = await waitForRelease(plan, options.ports ?? createPortReader());
  const result = resultOf(outcomes, stillListening);
  const errors = outcomes.flatMap((outcome) => (outcome.error === undefined ? [] : [outcome.error]));
  return { result, outcomes, stillListening, ...(errors.length > 0 ? { error: errors.join('; ') } : {}) };
}
