/**
 * The watcher's cheap read (Linux): instead of every process, only the children of pid 1 and of
 * known subreapers (where orphans land) and their descendants when they carry agent evidence,
 * plus the remembered sessions' roots, members and descendants (the owned-tree refresh). argv and
 * uid are read once per identity (shared cache), markers once per identity (the marker reader's
 * cache), cwd only for the processes followed (what a session or leak shows).
 */

import { readChildPids } from '../table/linux-children.js';
import { buildEntry, type IdentityCache } from '../table/linux-entry.js';
import { readStatFields, type StatFields } from '../table/linux-stat.js';
import type { ProcessEntry, ProcessTable } from '../table/types.js';
import type { MarkerReader } from './environ.js';
import type { StoredSession } from './store-schema.js';

/** Bound on the processes one focused read visits (a fork bomb under pid 1 must not stall a tick). */
export const MAX_FOCUSED_PROCESSES = 20_000;

/**
 * One read's stat lines by pid: a process whose entry was read and whose children are then
 * followed needs its stat once per tick, not twice (the stat read is most of a tick's cost).
 */
type StatsThisTick = Map<number, StatFields | null>;

function statOf(pid: number, stats: StatsThisTick): StatFields | null {
  let stat = stats.get(pid);
  if (stat === undefined) {
    stat = readStatFields(pid);
    stats.set(pid, stat);
  }
  return stat;
}

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
function childrenOf(pid: number, stats: StatsThisTick): number[] {
  const stat = statOf(pid, stats);
  return stat === null ? [] : readChildPids(pid, stat.numThreads);
}

export function readFocusedTable(
  remembered: readonly StoredSession[],
  adopters: ReadonlySet<number>,
  hasEvidence: (entry: ProcessEntry) => boolean,
  cache: IdentityCache,
): ProcessTable {
  const entries = new Map<number, ProcessEntry>();
  const stats: StatsThisTick = new Map();
  const cwdLess: CwdLess = new Set();
  const expand: number[] = [];
  for (const adopter of [1, ...adopters]) {
    readEntry(adopter, cache, entries, stats, cwdLess, false);
    for (const pid of childrenOf(adopter, stats)) {
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
  while (expand.length > 0 && entries.size < MAX_FOCUSED_PROCESSES) {
    for (const child of childrenOf(expand.pop() as number, stats)) {
      if ((!entries.has(child) || cwdLess.has(child)) && readEntry(child, cache, entries, stats, cwdLess) !== null)
        expand.push(child);
    }
  }
  return { entries, readAtMs: Date.now() };
}

/** An evidence test for the focused read: any agent marker. */
export function hasMarkers(readMarkers: MarkerReader): (entry: ProcessEntry) => boolean {
  return (entry) => {
    const vars = readMarkers(entry);
    return vars !== null && vars.size > 0;
  };
}
