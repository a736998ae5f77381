/**
 * The system-wide table travels as diffs: the first one after a view starts watching is full,
 * then only processes that appeared or changed (upserts) and the keys of those that are gone.
 * At 5,000 processes most rows are unchanged between polls, so a diff is a small message.
 */
import type { ProcessNode } from '@treewarden/protocol';

export interface SystemDiff {
  readonly full: boolean;
  readonly upserts: ProcessNode[];
  readonly removed: string[];
}

export function nodeKey(node: Pick<ProcessNode, 'pid' | 'startTime'>): string {
  return `${node.pid}:${node.startTime}`;
}

function listeningText(node: ProcessNode): string {
  return node.listening?.map((socket) => `${socket.proto} ${socket.address}:${socket.port}`).join(',') ?? '';
}

/** What a view shows of the process reads the same in both (identity aside). */
export function sameNode(a: ProcessNode, b: ProcessNode): boolean {
  return (
    a.state === b.state &&
    a.cpuPercent === b.cpuPercent &&
    a.rssBytes === b.rssBytes &&
    a.ppid === b.ppid &&
    a.pgid === b.pgid &&
    a.sid === b.sid &&
    a.commandLine === b.commandLine &&
    a.cwd === b.cwd &&
    a.escaped === b.escaped &&
    listeningText(a) === listeningText(b)
  );
}

/** `previous === null` (nobody had a table yet) yields a full diff. */
export function diffSystem(
  previous: ReadonlyMap<string, ProcessNode> | null,
  next: ReadonlyMap<string, ProcessNode>,
): SystemDiff {
  if (previous === null) return { full: true, upserts: [...next.values()], removed: [] };
  const upserts: ProcessNode[] = [];
  // forEach, not for-of over entries: no [key, node] pair per process every poll.
  next.forEach((node, key) => {
    const before = previous.get(key);
    if (before !== node && (before === undefined || !sameNode(before, node))) upserts.push(node);
  });
  const removed: string[] = [];
  previous.forEach((_node, key) => {
    if (!next.has(key)) removed.push(key);
  });
  return { full: false, upserts, removed };
}

/** Applies a diff to a table (what a UI does with it); used by tests to prove diffs add up. */
export function applySystemDiff(table: ReadonlyMap<string, ProcessNode>, diff: SystemDiff): Map<string, ProcessNode> {
  const result = diff.full ? new Map<string, ProcessNode>() : new Map(table);
  for (const key of diff.removed) result.delete(key);
  for (const node of diff.upserts) result.set(nodeKey(node), node);
  return result;
}
