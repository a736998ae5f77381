import type { HostEvent, ProcessNode } from '@treewarden/protocol';
import { identityKey, isZombie } from '../model/identity';

export type SystemDiff = Extract<HostEvent, { type: 'systemDiff' }>;

/**
 * Applies a system-table diff into a NEW Map, leaving `previous` as it was (tests and one-off
 * callers); the store applies diffs in place (applySystemDiffInPlace).
 */
export function applySystemDiff(
  previous: ReadonlyMap<string, ProcessNode>,
  diff: SystemDiff,
): Map<string, ProcessNode> {
  return applySystemDiffWithShape(previous, diff).table;
}

/** applySystemDiff, and whether the shape changed and the zombie count (see applySystemDiffInPlace). */
export function applySystemDiffWithShape(
  previous: ReadonlyMap<string, ProcessNode>,
  diff: SystemDiff,
  previousZombies = countZombies(previous),
): {
  table: Map<string, ProcessNode>;
  shapeChanged: boolean;
  zombies: number;
  added: ProcessNode[];
  removed: string[];
} {
  const table = new Map(previous);
  return { table, ...applySystemDiffInPlace(table, diff, previousZombies) };
}

/**
 * Applies a system-table diff to `table` itself: copying a 20,000-process Map on every poll cost
 * more than the rest of the update, so the store mutates its table and says so by a version
 * counter. A full diff replaces the table; otherwise removed keys go and upserts replace by
 * identity, so a reused pid with a new start time is a new row, never an edit of the old one.
 * Says whether the tree's shape changed (a process came, went or got a new parent), and how many
 * zombies the table now holds (`previousZombies`: its count before), kept up by the diff's own
 * rows so the table is not scanned on every poll.
 */
export function applySystemDiffInPlace(
  table: Map<string, ProcessNode>,
  diff: SystemDiff,
  previousZombies = countZombies(table),
  /** The upserts' identity keys, when the caller made them already (one string per process per diff). */
  keys: readonly string[] = diff.upserts.map(identityKey),
): { shapeChanged: boolean; zombies: number; added: ProcessNode[]; removed: string[] } {
  if (diff.full) table.clear();
  // What came and went, for the structures kept beside the table (the history's sample groups).
  const added: ProcessNode[] = [];
  const removed: string[] = [];
  let shapeChanged = diff.full;
  let zombies = diff.full ? 0 : previousZombies;
  if (!diff.full)
    for (const key of diff.removed) {
      const before = table.get(key);
      if (before === undefined) continue;
      table.delete(key);
      removed.push(key);
      shapeChanged = true;
      if (isZombie(before)) zombies -= 1;
    }
  for (let i = 0; i < diff.upserts.length; i += 1) {
    const node = diff.upserts[i] as ProcessNode;
    const key = keys[i] as string;
    const before = table.get(key);
    if (before === undefined) added.push(node);
    if (!before || before.ppid !== node.ppid) shapeChanged = true;
    if (before !== undefined && isZombie(before)) zombies -= 1;
    if (isZombie(node)) zombies += 1;
    table.set(key, node);
  }
  return { shapeChanged, zombies, added, removed };
}

export function countZombies(table: ReadonlyMap<string, ProcessNode>): number {
  let count = 0;
  for (const node of table.values()) if (isZombie(node)) count += 1;
  return count;
}
