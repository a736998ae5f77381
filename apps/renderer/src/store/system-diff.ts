import type { HostEvent, ProcessNode } from '@treewarden/protocol';
import { identityKey, isZombie } from '../model/identity';

export type SystemDiff = Extract<HostEvent, { type: 'systemDiff' }>;

/**
 * Applies a system-table diff into a NEW Map (zustand subscribers compare by reference). A full
 * diff replaces the table; otherwise removed keys go and upserts replace by identity, so a reused
 * pid with a new start time is a new row, never an edit of the old one.
 */
export function applySystemDiff(
  previous: ReadonlyMap<string, ProcessNode>,
  diff: SystemDiff,
): Map<string, ProcessNode> {
  return applySystemDiffWithShape(previous, diff).table;
}

/**
 * Same, and says whether the tree's shape changed (a process came, went or got a new parent),
 * and how many zombies the new table holds (`previousZombies`: the old table's count), kept up
 * by the diff's own rows so a 20,000-process table is not scanned on every poll.
 * Most polls only move CPU and memory; the view then keeps its row order and re-reads nodes.
 */
export function applySystemDiffWithShape(
  previous: ReadonlyMap<string, ProcessNode>,
  diff: SystemDiff,
  previousZombies = countZombies(previous),
): { table: Map<string, ProcessNode>; shapeChanged: boolean; zombies: number } {
  const table = diff.full ? new Map<string, ProcessNode>() : new Map(previous);
  let shapeChanged = diff.full;
  let zombies = diff.full ? 0 : previousZombies;
  if (!diff.full)
    for (const key of diff.removed) {
      const before = table.get(key);
      if (before === undefined) continue;
      table.delete(key);
      shapeChanged = true;
      if (isZombie(before)) zombies -= 1;
    }
  for (const node of diff.upserts) {
    const key = identityKey(node);
    const before = table.get(key);
    if (!before || before.ppid !== node.ppid) shapeChanged = true;
    if (before !== undefined && isZombie(before)) zombies -= 1;
    if (isZombie(node)) zombies += 1;
    table.set(key, node);
  }
  return { table, shapeChanged, zombies };
}

export function countZombies(table: ReadonlyMap<string, ProcessNode>): number {
  let count = 0;
  for (const node of table.values()) if (isZombie(node)) count += 1;
  return count;
}
