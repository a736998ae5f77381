/**
 * `@treewarden/engine/compat/paperclip`: the process-tree owner API of Paperclip's server-restart
 * supervisor (`createProcessTreeOwner`, `stopOwnedProcessTree`, `readProcessTable`), as a thin adapter
 * over the engine's revalidating tree owner (ownership/). `child` is the Node ChildProcess the
 * caller spawned (normally `detached`, so it leads its own process group). Every signal re-reads
 * the table and is refused ("identity became uncertain") exactly as the engine refuses it.
 */
import type { ChildProcess } from 'node:child_process';
import { GroupEpermError, NoTableError } from '../ownership/errors.js';
import { readLeanProcTable } from '../ownership/proc-reader.js';
import { createTreeOwner, type RevalidatingTreeOwner } from '../ownership/tree-owner.js';
import { pollUntil } from '../runtime/wait.js';
import { createSignalOps } from '../signal/signal-ops.js';
import type { SignalName, SignalOps, SignalResult } from '../signal/types.js';
import { readDarwinTable } from '../table/darwin-ps.js';
import type { SpawnInspector } from '../table/inspector.js';
import { createLinuxReader } from '../table/linux-reader.js';
import type { ProcessEntry, ProcessTable, TableReader } from '../table/types.js';
import { isZombie } from '../table/types.js';

export interface ProcessObservation {
  readonly pid: number;
  readonly parentPid: number;
  readonly processGroupId: number;
  /** The start-time identity (Linux: stat field 22; macOS: `ps -o lstart`). */
  readonly started: string;
  /** Kernel state letter (`R S D Z T …`). */
  readonly state: string;
  /** `zombie`: exited, not yet reaped (counts as stopped); `live` otherwise. */
  readonly kind: 'live' | 'zombie';
}

export type ReadTable = () => Promise<ProcessObservation[] | null>;
/** `process.kill(-pgid, signal)` semantics: throws (ESRCH, EPERM, …) on failure. */
export type SignalGroup = (pgid: number, signal: NodeJS.Signals) => void;

export interface ProcessTreeOwnerOptions {
  readonly readTable?: ReadTable;
  readonly signalGroup?: SignalGroup;
}

export interface ProcessTreeOwner {
  /** Re-reads the table and adopts new members through still-owned ancestors. */
  observe(): Promise<void>;
  /** Revalidates and signals `groups` (default: every owned group); resolves with the groups signalled. */
  signal(signal: NodeJS.Signals, groups?: readonly number[]): Promise<number[]>;
  /** The root's group, or after the root exited, its surviving top owned groups. */
  gracefulRoots(): number[];
  liveGroups(): number[];
  stopObserving(): void;
  /** Treewarden addition: the last read yielded no table (the inspector failed or passed its bound). */
  lastReadFailed(): boolean;
  /** Treewarden addition: the direct child was alive (not gone, not a zombie) at the last good read. */
  childLive(): boolean;
}

/** Background observation period while the owner lives (a poll, unref'd). */
export const OBSERVE_INTERVAL_MS = 1000;
/** Poll interval while waiting for a stop to take. */
export const STOP_POLL_MS = 25;

function toObservation(entry: ProcessEntry): ProcessObservation {
  return {
    pid: entry.pid,
    parentPid: entry.ppid,
    processGroupId: entry.pgid,
    started: entry.startTime,
    state: entry.state,
    kind: isZombie(entry) ? 'zombie' : 'live',
  };
}

/** Bounded table read: with `spawnInspector` (or off Linux) through `ps`, whose output past its cap gets it SIGKILLed and yields null. */
export async function readProcessTable(spawnInspector?: SpawnInspector): Promise<ProcessObservation[] | null> {
  const table =
    spawnInspector === undefined && process.platform === 'linux'
      ? readLeanProcTable()
      : await readDarwinTable(spawnInspector === undefined ? {} : { spawnInspector });
  return table === null ? null : [...table.entries.values()].map(toObservation);
}

function toTable(observations: readonly ProcessObservation[]): ProcessTable {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const entries = new Map<number, ProcessEntry>();
  for (const o of observations) {
    entries.set(o.pid, {
      pid: o.pid,
      startTime: o.started,
      ppid: o.parentPid,
      pgid: o.processGroupId,
      sid: 0,
      state: o.kind === 'zombie' ? 'Z' : o.state,
      uid,
      command: '',
      args: [],
      cwd: null,
      cpuTimeMs: 0,
      rssBytes: 0,
      startedAtMs: 0,
    });
  }
  return { entries, readAtMs: Date.now() };
}

/**
 * The caller's signal function, as engine SignalOps. Its EPERM errors are kept by group: when the
 * engine confirms one is fatal (a running member remains), the caller gets its own error object
 * back unchanged, as the original supervisor surfaced it.
 */
function signalOpsFor(signalGroup: SignalGroup | undefined, epermErrors: Map<number, unknown>): SignalOps {
  const engine = createSignalOps();
  if (signalGroup === undefined) return engine;
  return {
    signalProcess: (target, signal) => engine.signalProcess(target, signal),
    signalGroup(pgid, signal): SignalResult {
      try {
        signalGroup(pgid, signal as NodeJS.Signals);
        return 'sent';
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ESRCH') return 'gone';
        if (code === 'EPERM') {
          epermErrors.set(pgid, error);
          return 'eperm';
        }
        throw error;
      }
    },
  };
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

export function createProcessTreeOwner(child: ChildProcess, options: ProcessTreeOwnerOptions = {}): ProcessTreeOwner {
  const readTable = options.readTable ?? (() => readProcessTable());
  const epermErrors = new Map<number, unknown>();
  const signals = signalOpsFor(options.signalGroup, epermErrors);
  let lastReadFailed = false;
  let childLive = true;
  // With the default table on Linux, polls read only the owned trees (children files).
  const treeReader = options.readTable === undefined && process.platform === 'linux' ? createLinuxReader() : null;
  function noteRead(table: ProcessTable | null): ProcessTable | null {
    lastReadFailed = table === null;
    if (table === null) return null;
    const entry = child.pid === undefined ? undefined : table.entries.get(child.pid);
    childLive =
      entry !== undefined && !isZombie(entry) && (engine === null || entry.startTime === engine.root.startTime);
    return table;
  }
  const reader: TableReader = {
    platform: process.platform,
    readAll: async () => {
      const observations = await readTable();
      return noteRead(observations === null ? null : toTable(observations));
    },
    readTrees: async (roots) => (treeReader === null ? reader.readAll() : noteRead(treeReader.snapshotTrees(roots))),
  };
  let engine: RevalidatingTreeOwner | null = null;

  /**
   * The child's identity is taken from the first table read after which Node has still not
   * reaped it: until Node reaps a child its pid cannot be recycled, so that entry is our child.
   */
  async function ensureEngine(): Promise<RevalidatingTreeOwner | null> {
    if (engine !== null) return engine;
    const table = await reader.readAll();
    const entry = child.pid === undefined ? undefined : table?.entries.get(child.pid);
    if (table === null || entry === undefined || hasExited(child)) return null;
    engine = createTreeOwner({ pid: entry.pid, startTime: entry.startTime }, { reader, signals });
    engine.observeTable(table);
    return engine;
  }

  const timer = setInterval(() => void observeQuietly(), OBSERVE_INTERVAL_MS);
  timer.unref();
  async function observeQuietly(): Promise<void> {
    try {
      await owner.observe();
    } catch {
      // A failed background poll is retried at the next tick; signals always re-read anyway.
    }
  }

  const owner: ProcessTreeOwner = {
    async observe() {
      const existing = engine;
      if (existing === null) await ensureEngine();
      else await existing.observe();
    },
    async signal(signal, groups) {
      const current = await ensureEngine();
      // Nothing was ever owned: with no table that is an error (nothing can be revalidated).
      if (current === null && lastReadFailed) throw new NoTableError();
      if (current === null) return [];
      epermErrors.clear();
      try {
        const report = await current.signal(signal as SignalName, groups === undefined ? {} : { groups });
        return [...report.groups];
      } catch (error) {
        const original = error instanceof GroupEpermError ? epermErrors.get(error.pgid) : undefined;
        throw original ?? error;
      }
    },
    gracefulRoots: () => (engine === null ? [] : [...engine.gracefulRoots().groups]),
    liveGroups: () => (engine === null ? [] : [...engine.liveGroups()]),
    stopObserving: () => clearInterval(timer),
    lastReadFailed: () => lastReadFailed,
    childLive: () => childLive,
  };
  treePolls.set(owner, async () => {
    if (engine === null) await owner.observe();
    else await engine.observe('trees');
  });
  return owner;
}

/** The cheap observation stopOwnedProcessTree polls with (owned trees only), per owner. */
const treePolls = new WeakMap<ProcessTreeOwner, () => Promise<void>>();

async function waitUntil(condition: () => Promise<boolean> | boolean, boundMs: number): Promise<boolean> {
  return (await pollUntil(condition, { deadlineMs: boundMs, intervalMs: STOP_POLL_MS })) !== null;
}

/** No table: all that is known is the direct child. SIGTERM, wait, SIGKILL, wait, or fail loudly. */
async function stopDirectChild(child: ChildProcess, graceMs: number, killMs: number): Promise<void> {
  if (hasExited(child)) return;
  child.kill('SIGTERM');
  if (await waitUntil(() => hasExited(child), graceMs)) return;
  child.kill('SIGKILL');
  if (await waitUntil(() => hasExited(child), killMs)) return;
  throw new Error(
    `Known direct child remained: pid ${child.pid} survived SIGTERM and SIGKILL (${graceMs} + ${killMs} ms) and no process table could be read`,
  );
}

function childRunning(child: ChildProcess, owner: ProcessTreeOwner): boolean {
  return !hasExited(child) && owner.childLive();
}

/**
 * SIGTERM to the graceful roots. When the root vanished between the observation and the signal's
 * fresh read, SIGTERM reached nobody; the surviving owned groups are now the graceful roots and
 * get SIGTERM themselves, so nothing is escalated to SIGKILL without a graceful signal first.
 */
async function signalGracefully(child: ChildProcess, owner: ProcessTreeOwner): Promise<void> {
  const roots = owner.gracefulRoots();
  if (roots.length === 0) {
    if (childRunning(child, owner)) child.kill('SIGTERM');
    return;
  }
  const delivered = await owner.signal('SIGTERM', roots);
  if (delivered.length > 0) return;
  const survivors = owner.gracefulRoots();
  if (survivors.length > 0) await owner.signal('SIGTERM', survivors);
}

/**
 * SIGTERM to the graceful roots, wait `graceMs`, SIGKILL every owned group, wait `killMs`. A
 * direct child outside any owned group (not spawned detached) is signalled directly. Without a
 * table, only the direct child is known: it gets SIGTERM then SIGKILL, and if it survives both,
 * this rejects with `Known direct child remained` instead of hanging.
 */
export async function stopOwnedProcessTree(
  child: ChildProcess,
  owner: ProcessTreeOwner,
  graceMs: number,
  killMs: number,
): Promise<void> {
  await owner.observe();
  if (owner.lastReadFailed()) return stopDirectChild(child, graceMs, killMs);
  await signalGracefully(child, owner);
  const poll = treePolls.get(owner) ?? (() => owner.observe());
  const gone = async () => {
    await poll();
    return !owner.lastReadFailed() && owner.liveGroups().length === 0 && !childRunning(child, owner);
  };
  if (await waitUntil(gone, graceMs)) return;
  await owner.observe();
  if (owner.lastReadFailed()) return stopDirectChild(child, 0, killMs);
  await owner.signal('SIGKILL');
  if (childRunning(child, owner)) child.kill('SIGKILL');
  if (await waitUntil(gone, killMs)) return;
  throw new Error(
    `Process tree remained after SIGKILL and ${killMs} ms: groups ${owner.liveGroups().join(', ') || '(none)'} still alive`,
  );
}
