/**
 * The watcher's cheap read (Linux): instead of every process, only the children of pid 1 and of
 * known subreapers (where orphans land) and their descendants when they carry agent evidence,
 * plus the remembered sessions' roots, members and descendants (the owned-tree refresh). argv and
 * uid are read once per identity (shared cache), markers once per identity (the marker reader's
 * cache), cwd only for the processes followed (what a session or leak shows). The watcher's reader
 * derives the children of processes it followed last tick (derived-children.ts) instead of
 * reading their per-thread `children` files; `readFocusedTable` reads them all. Given a seed test,
 * the watcher's reader also judges every process new since its last look (new-pids.ts): a new
 * seed (an agent root by argv shape) is read with its ancestry and descendants, so a
 * session started anywhere on the machine is in the next tick's table, not the next full scan's.
 */

import { readChildPids } from '../../table/linux-children.js';
import { buildEntry, type IdentityCache, readUid } from '../../table/linux-entry.js';
import { createNewPidWatch, type NewPids } from '../../table/new-pids.js';
import { createNamespaceInitCache, type NamespaceInitCache } from '../../table/pid-namespace-init.js';
import type { ProcessEntry, ProcessTable } from '../../table/types.js';
import { type Derivation, deriveChildren, type Followed } from '../read/derived-children.js';
import type { MarkerReader } from '../read/environ.js';
import { type StatsThisTick, statOf } from '../read/tick-stats.js';
import { MAX_ANCESTRY_DEPTH } from '../sessions/recognise.js';
import type { StoredSession } from '../sessions/store-schema.js';

/** Bound on the processes one focused read visits (a fork bomb under pid 1 must not stall a tick). */
export const MAX_FOCUSED_PROCESSES = 20_000;

/**
 * The pids whose entry was read without its cwd: the adopters' children that carry no evidence
 * (most of them), which nothing shows. One that is also a remembered member or a descendant is
 * read again with it.
 */
type CwdLess = Set<number>;

function readEntry(
  pid: number,
  cache: IdentityCache,
  into: Map<number, ProcessEntry>,
  stats: StatsThisTick,
  cwdLess: CwdLess,
  withCwd = true,
): ProcessEntry | null {
  const known = into.get(pid);
  if (known !== undefined && !(withCwd && cwdLess.has(pid))) return known;
  const stat = statOf(pid, stats);
  // argv and uid come from the identity cache: a second build only adds the cwd readlink.
  const entry = stat === null ? null : buildEntry(pid, stat, cache, withCwd);
  if (entry === null) return known ?? null;
  into.set(pid, entry);
  if (withCwd) cwdLess.delete(pid);
  else cwdLess.add(pid);
  return entry;
}

/**
 * The children as the kernel lists them now; the thread count comes from this tick's stat of
 * the parent (a thread started since only means its children are found on the next tick).
 */
function exactChildrenOf(pid: number, stats: StatsThisTick): number[] {
  const stat = statOf(pid, stats);
  return stat === null ? [] : readChildPids(pid, stat.numThreads, stat.state === 'Z');
}

/**
 * A new seed's ancestors (cwd-less), so recognition sees what it runs under (an agent above it
 * makes it a subagent, not a root) as a full table would show it. A few stat reads per seed.
 */
function readAncestry(
  entry: ProcessEntry,
  cache: IdentityCache,
  entries: Map<number, ProcessEntry>,
  stats: StatsThisTick,
  cwdLess: CwdLess,
): void {
  let ppid = entry.ppid;
  for (let depth = 0; ppid > 1 && depth < MAX_ANCESTRY_DEPTH && !entries.has(ppid); depth += 1) {
    const parent = readEntry(ppid, cache, entries, stats, cwdLess, false);
    if (parent === null) return;
    ppid = parent.ppid;
  }
}

interface ReadState {
  readonly stats: StatsThisTick;
  /** Processes new since the last look, judged as seeds (null: unknown, or no seed test). */
  readonly newPids: NewPids;
  readonly isSeed: ((entry: ProcessEntry) => boolean) | null;
  /** Only this user's new processes can be seeds: another's is skipped before its argv is read. */
  readonly seedUid: number | undefined;
  /** Filled by the read: the entries of the new processes it judged. */
  readonly fresh: ProcessEntry[];
  readonly derivation: Derivation | null;
  readonly adopters: ReadonlySet<number>;
  readonly namespaceInits: NamespaceInitCache;
  /** Filled by the read: the processes whose children it found. */
  readonly followed: Map<number, string>;
}

function childrenOf(pid: number, state: ReadState): number[] {
  const stat = statOf(pid, state.stats);
  if (stat === null) return [];
  state.followed.set(pid, stat.startTicks);
  const derivation = state.derivation;
  const derivable =
    derivation !== null &&
    derivation.before.get(pid) === stat.startTicks &&
    !state.adopters.has(pid) &&
    !state.namespaceInits.isInit(pid, stat.startTicks);
  if (!derivable) return readChildPids(pid, stat.numThreads, stat.state === 'Z');
  return (derivation.byParent.get(pid) ?? []).filter((child) => child !== pid);
}

function readFocused(
  remembered: readonly StoredSession[],
  adopterPids: ReadonlySet<number>,
  hasEvidence: (entry: ProcessEntry) => boolean,
  cache: IdentityCache,
  state: ReadState,
): { table: ProcessTable; complete: boolean } {
  const entries = new Map<number, ProcessEntry>();
  const { stats } = state;
  const cwdLess: CwdLess = new Set();
  const expand: number[] = [];
  for (const adopter of [1, ...adopterPids]) {
    readEntry(adopter, cache, entries, stats, cwdLess, false);
    for (const pid of exactChildrenOf(adopter, stats)) {
      const entry = readEntry(pid, cache, entries, stats, cwdLess, false);
      if (entry !== null && hasEvidence(entry)) {
        readEntry(pid, cache, entries, stats, cwdLess);
        expand.push(pid);
      }
    }
  }
  for (const session of remembered) {
    for (const pid of [session.root.pid, ...session.members.map((member) => member.pid)]) {
      if (readEntry(pid, cache, entries, stats, cwdLess) !== null) expand.push(pid);
    }
  }
  // Live sessions' trees are followed every tick (a member's new child is seen at once); the
  // descendants of evidence-bearing orphans and of ended sessions' survivors leak with them.
  const expanded = new Set<number>();
  const expandAll = () => {
    while (expand.length > 0 && entries.size < MAX_FOCUSED_PROCESSES) {
      const pid = expand.pop() as number;
      if (expanded.has(pid)) continue;
      expanded.add(pid);
      for (const child of childrenOf(pid, state)) {
        if ((!entries.has(child) || cwdLess.has(child)) && readEntry(child, cache, entries, stats, cwdLess) !== null)
          expand.push(child);
      }
    }
  };
  expandAll();
  // The new processes outside what is followed: a seed starts a tree of its own (a new session).
  const isSeed = state.isSeed ?? (() => false);
  for (const pid of state.isSeed === null ? [] : (state.newPids ?? [])) {
    const known = entries.get(pid);
    if (known !== undefined) {
      state.fresh.push(known);
      continue;
    }
    const stat = statOf(pid, stats);
    if (stat === null || (state.seedUid !== undefined && readUid(pid) !== state.seedUid)) continue;
    const entry = buildEntry(pid, stat, cache, false);
    if (entry === null) continue;
    state.fresh.push(entry);
    if (!isSeed(entry) || entries.size >= MAX_FOCUSED_PROCESSES) {
      // Not followed: never read again (not new at the next read), so nothing to keep cached.
      cache.delete(pid);
      continue;
    }
    readEntry(pid, cache, entries, stats, cwdLess);
    expand.push(pid);
    readAncestry(entry, cache, entries, stats, cwdLess);
  }
  expandAll();
  // Cut short by the bound: some followed process's children were never looked at.
  return { table: { entries, readAtMs: Date.now() }, complete: expand.length === 0 };
}

function adopterSet(adopters: ReadonlySet<number>): Set<number> {
  return new Set([1, ...adopters]);
}

/** One exact focused read: every followed process's children read from the kernel. */
export function readFocusedTable(
  remembered: readonly StoredSession[],
  adopters: ReadonlySet<number>,
  hasEvidence: (entry: ProcessEntry) => boolean,
  cache: IdentityCache,
): ProcessTable {
  const state: ReadState = {
    stats: new Map(),
    newPids: null,
    isSeed: null,
    seedUid: undefined,
    fresh: [],
    derivation: null,
    adopters: adopterSet(adopters),
    namespaceInits: createNamespaceInitCache(),
    followed: new Map(),
  };
  return readFocused(remembered, adopters, hasEvidence, cache, state).table;
}

export interface FocusedReader {
  /**
   * The processes new since the last look (null: unknown: the first look, a pid wrap, no cursor).
   * The watcher looks before every read, a full one too, so the next focused read's new pids
   * start where that read's listing did; `read` looks itself when nobody did.
   */
  look(): NewPids;
  /**
   * The next read judges the same new pids as the last one (a second read of one tick: its table
   * replaces the first's, so a session found in the first must be found again).
   */
  repeatLook(): void;
  read(remembered: readonly StoredSession[], adopters: ReadonlySet<number>): ProcessTable;
  /** The next read finds children exactly (the watcher calls this after each full scan). */
  reset(): void;
  /** How the last read found children: derived from new pids, or read exactly (first, wrap, reset). */
  readonly lastMode: 'incremental' | 'exact';
  /** The entries of the new processes the last read judged as seeds (cwd-less unless seeds). */
  readonly lastNew: readonly ProcessEntry[];
}

/**
 * The watcher's focused reader: the same table as `readFocusedTable`, but the children of a
 * process followed last tick are derived (see `Followed`) instead of read from its per-thread
 * `children` files (most of a tick for multi-threaded node processes). With `isSeed`, the new
 * processes since the last look are judged too (see the file's comment).
 */
export function createFocusedReader(
  hasEvidence: (entry: ProcessEntry) => boolean,
  cache: IdentityCache,
  isSeed: ((entry: ProcessEntry) => boolean) | null = null,
  seedUid?: number,
): FocusedReader {
  const watch = createNewPidWatch();
  const namespaceInits = createNamespaceInitCache();
  let followed: Followed | null = null;
  let lastMode: 'incremental' | 'exact' = 'exact';
  let lastNew: readonly ProcessEntry[] = [];
  // A look not yet used by a read (undefined: none), and the one the last read used.
  let looked: NewPids | undefined;
  let used: NewPids = null;
  return {
    look() {
      looked = watch.next();
      return looked;
    },
    repeatLook() {
      looked = used;
    },
    read(remembered, adopters) {
      const stats: StatsThisTick = new Map();
      // The listing comes first: anything forked after it is new at the next read.
      const newPids = looked !== undefined ? looked : watch.next();
      looked = undefined;
      used = newPids;
      const derivation = newPids !== null && followed !== null ? deriveChildren(followed, newPids, stats) : null;
      const state: ReadState = {
        stats,
        newPids,
        isSeed,
        seedUid,
        fresh: [],
        derivation,
        adopters: adopterSet(adopters),
        namespaceInits,
        followed: new Map(),
      };
      const { table, complete } = readFocused(remembered, adopters, hasEvidence, cache, state);
      lastMode = derivation === null ? 'exact' : 'incremental';
      lastNew = state.fresh;
      followed = complete ? { startTicks: state.followed } : null;
      namespaceInits.retain(new Set(state.followed.keys()));
      return table;
    },
    reset() {
      followed = null;
    },
    get lastMode() {
      return lastMode;
    },
    get lastNew() {
      return lastNew;
    },
  };
}

/** An evidence test for the focused read: any agent marker. */
export function hasMarkers(readMarkers: MarkerReader): (entry: ProcessEntry) => boolean {
  return (entry) => {
    const vars = readMarkers(entry);
    return vars !== null && vars.size > 0;
  };
}
