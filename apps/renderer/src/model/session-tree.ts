/** A session's processes in tree order (parents before children, depth for indentation). */
import type { SessionProcess } from '@treewarden/protocol';

export interface SessionRow {
  readonly node: SessionProcess;
  readonly depth: number;
}

/** Processes whose parent is not in the list are tops (the root; leaked members reparented to pid 1). */
export function sessionRowsInTreeOrder(processes: readonly SessionProcess[]): SessionRow[] {
  const pids = new Set(processes.map((node) => node.pid));
  const children = new Map<number, SessionProcess[]>();
  const tops: SessionProcess[] = [];
  for (const node of processes) {
    if (pids.has(node.ppid) && node.ppid !== node.pid) {
      const siblings = children.get(node.ppid) ?? [];
      siblings.push(node);
      children.set(node.ppid, siblings);
    } else tops.push(node);
  }
  const rows: SessionRow[] = [];
  const seen = new Set<number>();
  const visit = (node: SessionProcess, depth: number) => {
    if (seen.has(node.pid)) return; // a ppid cycle cannot happen, but never loop on bad input
    seen.add(node.pid);
    rows.push({ node, depth });
    for (const child of children.get(node.pid) ?? []) visit(child, depth + 1);
  };
  for (const top of tops) visit(top, 0);
  return rows;
}
