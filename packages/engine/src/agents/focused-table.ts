/**
 * The watcher's cheap read (Linux): instead of every process, only the children of pid 1 and of
 * known subreapers (where orphans land) and their descendants when they carry agent evidence,
 * plus the remembered sessions' roots, members and descendants (the owned-tree refresh). argv and uid are read once per identity
 * (shared cache), markers once per identity (the marker reader's cache).
 */

import { readChildPids } from '../table/linux-children.js';
import { buildEntry, type IdentityCache } from '../table/linux-entry.js';
import { readStatFields } from '../table/linux-stat.js';
import type { ProcessEntry, ProcessTable } from '../table/types.js';
import type { MarkerReader } from './environ.js';
import type { StoredSession } from './store-schema.js';

/** Bound on the processes one focused read visits (a fork bomb under pid 1 must not stall a tick). */
export const MAX_FOCUSED_PROCESSES = 20_000;

function readEntry(pid: number, cache: IdentityCache, into: Map<number, ProcessEntry>): ProcessEntry | null {
  if (into.has(pid)) return into.get(pid) ?? null;
  const stat = readStatFields(pid);
  const entry = stat === null ? null : buildEntry(pid, stat, cache);
  if (entry !== null) into.set(pid, entry);
  return entry;
}

function childrenOf(pid: number): number[] {
  const stat = readStatFields(pid);
  return stat === null ? [] : readChildPids(pid, stat.numThreads);
}

export function readFocusedTable(
  remembered: readonly StoredSession[],
  adopters: ReadonlySet<number>,
  hasEvidence: (entry: ProcessEntry) => boolean,
  cache: IdentityCache,
): ProcessTable {
  const entries = new Map<number, ProcessEntry>();
  const expand: number[] = [];
  for (const adopter of [1, ...adopters]) {
    readEntry(adopter, cache, entries);
    for (const pid of childrenOf(adopter)) {
      const entry = readEntry(pid, cache, entries);
      if (entry !== null && hasEvidence(entry)) expand.push(pid);
    }
  }
  for (const session of remembered) {
    for (const pid of [session.root.pid, ...session.members.map((member) => member.pid)]) {
      if (readEntry(pid, cache, entries) !== null) expand.push(pid);
    }
  }
  // Live sessions' trees are followed every tick (a member's new child is seen at once); the
  // descendants of evidence-bearing orphans and of ended sessions' survivors leak with them.
  while (expand.length > 0 && entries.size < MAX_FOCUSED_PROCESSES) {
    for (const child of childrenOf(expand.pop() as number)) {
      if (!entries.has(child) && readEntry(child, cache, entries) !== null) expand.push(child);
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
