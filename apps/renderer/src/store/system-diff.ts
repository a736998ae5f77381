import type { HostEvent, ProcessNode } from '@treewarden/protocol';
import { identityKey } from '../model/identity';

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
 * Same, and says whether the tree's shape changed (a process came, went or got a new parent).
 * Most polls only move CPU and memory; the view then keeps its row order and re-reads nodes.
 */
export function applySystemDiffWithShape(
  previous: ReadonlyMap<string, ProcessNode>,
  diff: SystemDiff,
): { table: Map<string, ProcessNode>; shapeChanged: boolean } {
  const table = diff.full ? new Map<string, ProcessNode>() : new Map(previous);
  let shapeChanged = diff.full;
  if (!diff.full) for (const key of diff.removed) if (table.delete(key)) shapeChanged = true;
  for (const node of diff.upserts) {
    const key = identityKey(node);
    const before = table.get(key);
    if (!before || before.ppid !== node.ppid) shapeChanged = true;
    table.set(key, node);
  }
  return { table, shapeChanged };
}
