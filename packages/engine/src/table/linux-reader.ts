/**
 * The Linux TableReader: a full snapshot whose per-poll cost is one stat read and one cwd
 * readlink per process (argv and uid come from the identity cache), and an owned-tree refresh
 * that reads only the given roots and what `/proc/PID/task/TID/children` says descends from them.
 */

import { hasChildrenFiles, readChildPids } from './linux-children.js';
import { buildEntry, type IdentityCache } from './linux-entry.js';
import { listPids, readStatFields } from './linux-stat.js';
import { filterTrees } from './trees.js';
import type { ProcessEntry, ProcessTable, TableReader } from './types.js';

/** Above this many cached identities without a full snapshot to prune them, start over. */
export const MAX_CACHED_IDENTITIES = 65_536;

export interface LinuxReader extends TableReader {
  /** The full table, synchronously. */
  snapshot(): ProcessTable;
  /** The given roots and their live descendants, synchronously. */
  snapshotTrees(rootPids: readonly number[]): ProcessTable;
}

function orNull(read: () => ProcessTable): ProcessTable | null {
  try {
    return read();
  } catch {
    return null;
  }
}

export function createLinuxReader(): LinuxReader {
  let cache: IdentityCache = new Map();

  function snapshot(): ProcessTable {
    // Only identities seen in this read survive it, so the cache never outgrows the table.
    const next: IdentityCache = new Map();
    const entries = new Map<number, ProcessEntry>();
    for (const pid of listPids()) {
      const stat = readStatFields(pid);
      if (stat === null) continue;
      const known = cache.get(pid);
      if (known !== undefined) next.set(pid, known);
      const entry = buildEntry(pid, stat, next);
      if (entry !== null) entries.set(pid, entry);
    }
    cache = next;
    return { entries, readAtMs: Date.now() };
  }

  function walkTrees(rootPids: readonly number[]): ProcessTable {
    if (cache.size > MAX_CACHED_IDENTITIES) cache = new Map();
    const entries = new Map<number, ProcessEntry>();
    const pending = [...rootPids];
    for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
      if (entries.has(pid) || pid <= 0) continue;
      const stat = readStatFields(pid);
      if (stat === null) continue;
      const entry = buildEntry(pid, stat, cache);
      if (entry === null) continue;
      entries.set(pid, entry);
      // Zombies have no children file worth reading: their children were already reparented.
      if (stat.state !== 'Z') pending.push(...readChildPids(pid, stat.numThreads));
    }
    return { entries, readAtMs: Date.now() };
  }

  function snapshotTrees(rootPids: readonly number[]): ProcessTable {
    // Kernels without CONFIG_PROC_CHILDREN: fall back to a full read filtered down.
    return hasChildrenFiles() ? walkTrees(rootPids) : filterTrees(snapshot(), rootPids);
  }

  return {
    platform: 'linux',
    snapshot,
    snapshotTrees,
    // Only an unreadable /proc itself throws; that is "no table", never a partial one.
    readAll: async () => orNull(snapshot),
    readTrees: async (rootPids) => orNull(() => snapshotTrees(rootPids)),
  };
}
