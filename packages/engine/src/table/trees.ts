/**
 * Platform-independent tree helpers over a ProcessTable: the owned-tree refresh of readers that
 * cannot walk children cheaply is a full read filtered down to the roots and their descendants.
 */
import type { ProcessEntry, ProcessTable } from './types.js';

/** ppid → child pids, for every entry in the table. */
export function indexChildren(entries: ReadonlyMap<number, ProcessEntry>): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const entry of entries.values()) {
    const siblings = children.get(entry.ppid);
    if (siblings === undefined) children.set(entry.ppid, [entry.pid]);
    else siblings.push(entry.pid);
  }
  return children;
}

/**
 * The roots that are present and all their descendants, as a new table with the same read time.
 * A "child" that started before its parent is not one: its parent exited and the pid was reused
 * (Windows keeps reporting the dead parent's pid as ParentProcessId).
 */
export function filterTrees(table: ProcessTable, rootPids: readonly number[]): ProcessTable {
  const children = indexChildren(table.entries);
  const entries = new Map<number, ProcessEntry>();
  const pending = [...rootPids];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    const entry = table.entries.get(pid);
    if (entry === undefined || entries.has(pid)) continue;
    entries.set(pid, entry);
    for (const child of children.get(pid) ?? []) {
      const childEntry = table.entries.get(child);
      if (childEntry !== undefined && childEntry.startedAtMs >= entry.startedAtMs) pending.push(child);
    }
  }
  return { entries, readAtMs: table.readAtMs };
}
