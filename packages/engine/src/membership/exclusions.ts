/**
 * Who is never a member, whatever the evidence: pid 0 and 1, the caller and its ancestors (a
 * supervisor started inside a run must not end itself), and what a run released on purpose
 * (`keepDescendants`) together with everything those processes start.
 */
import type { ProcessEntry, ProcessIdentity } from '../table/types.js';

/** The caller and its ancestors as far as `entries` shows them (our own entry absent: just us). */
export function callerLine(entries: ReadonlyMap<number, ProcessEntry>): Set<number> {
  const line = new Set<number>([process.pid]);
  let entry = entries.get(process.pid);
  while (entry !== undefined && entry.ppid > 1 && !line.has(entry.ppid)) {
    line.add(entry.ppid);
    entry = entries.get(entry.ppid);
  }
  return line;
}

/** Pids that can never be members in this table: pid ≤ 1 is checked apart, this is the rest. */
export function neverMember(pid: number, excluded: ReadonlySet<number>): boolean {
  return pid <= 1 || excluded.has(pid);
}

/**
 * Released identities still present (same pid and start time), and every live descendant of
 * theirs, as pids of this table. `children` is `indexChildren(entries)`.
 */
export function releasedTrees(
  released: Iterable<ProcessIdentity>,
  entries: ReadonlyMap<number, ProcessEntry>,
  children: ReadonlyMap<number, readonly number[]>,
): Set<number> {
  const excluded = new Set<number>();
  const queue: number[] = [];
  for (const identity of released) {
    if (entries.get(identity.pid)?.startTime === identity.startTime) queue.push(identity.pid);
  }
  while (queue.length > 0) {
    const pid = queue.pop() as number;
    if (excluded.has(pid)) continue;
    excluded.add(pid);
    for (const child of children.get(pid) ?? []) if (entries.has(child)) queue.push(child);
  }
  return excluded;
}
