/**
 * The system view's tree, kept up by each diff instead of re-flattened: processes are linked to
 * their parents as they come, go and move, and the row list is rebuilt by splicing. A subtree in
 * which nothing changed is copied from the last rows as it was (the same row objects, so memoised
 * rows do not re-render); only the paths from a change up to its root are walked again. At 20,000
 * processes with a few dozen exits per poll that is an array copy instead of a sort and a walk.
 *
 * Rows equal flattenEntries over the same table (test/system-tree.test.ts checks random diff
 * series against it). A table that breaks the tree's assumptions (two entries with one pid, or a
 * ppid cycle: both only in a torn read) is flattened from scratch until it is whole again.
 */
import type { ProcessNode } from '@treewarden/protocol';
import { identityKey } from './identity';
import { flattenEntries, type RowReuse, sameParent, type TreeRow } from './tree';

interface Rec {
  readonly key: string;
  node: ProcessNode;
  /** False once removed (a rec may still sit in a pending list). */
  alive: boolean;
  /** Set while a rows() pass walks the paths above a change. */
  touched: boolean;
  /** Where the last rows showed this process (−1: not shown), at what depth, and how many rows its shown subtree took. */
  index: number;
  depth: number;
  span: number;
  row: TreeRow | null;
}

export interface TreeDiff {
  full: boolean;
  upserts: readonly ProcessNode[];
  removed: readonly string[];
}

const NO_RECS: readonly Rec[] = [];

function byPidOrder(list: Rec[], pid: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((list[middle] as Rec).node.pid < pid) low = middle + 1;
    else high = middle;
  }
  return low;
}

function insertSorted(list: Rec[], rec: Rec): void {
  list.splice(byPidOrder(list, rec.node.pid), 0, rec);
}

function removeSorted(list: Rec[], rec: Rec): void {
  const at = byPidOrder(list, rec.node.pid);
  if (list[at] === rec) list.splice(at, 1);
}

interface Frame {
  rec: Rec;
  depth: number;
  kids: readonly Rec[];
  next: number;
  start: number;
}

export class SystemTree {
  private readonly recs = new Map<string, Rec>();
  private readonly byPid = new Map<number, Rec>();
  /** Processes by their ppid, sorted by pid; a parent's children even before (or after) it exists. */
  private readonly kids = new Map<number, Rec[]>();
  private roots: Rec[] = [];
  private rowsOut: TreeRow[] = [];
  private recsOut: Rec[] = [];
  private collapsed: ReadonlySet<string> = new Set();
  /** Processes whose row or children changed since the last rows(). */
  private readonly changed: Rec[] = [];
  /** Processes linked to a parent since the last check (a new link is the only way a cycle forms). */
  private readonly linked: Rec[] = [];
  private rootsChanged = true;
  /** Duplicate pid or ppid cycle: rows come from flattenEntries until the table is whole again. */
  private broken = false;

  get size(): number {
    return this.recs.size;
  }

  /** Applies a diff (removals first, like the table); true when the rows may have changed. */
  apply(diff: TreeDiff, keys: readonly string[] = diff.upserts.map(identityKey)): boolean {
    if (diff.full) {
      // Processes still there keep their records (and so their row objects).
      const before = new Map(this.recs);
      this.recs.clear();
      for (const node of diff.upserts) {
        const key = identityKey(node);
        const kept = before.get(key);
        if (kept) kept.node = node;
        this.recs.set(key, kept ?? this.newRec(key, node));
        before.delete(key);
      }
      for (const gone of before.values()) gone.alive = false;
      this.rebuild();
      return true;
    }
    let changed = false;
    for (const key of diff.removed) {
      const rec = this.recs.get(key);
      if (rec === undefined) continue;
      this.recs.delete(key);
      rec.alive = false;
      if (!this.broken) this.unlinkRemoved(rec);
      changed = true;
    }
    for (let i = 0; i < diff.upserts.length; i += 1) {
      const node = diff.upserts[i] as ProcessNode;
      const key = keys[i] as string;
      const rec = this.recs.get(key);
      if (rec === undefined) {
        const added = this.newRec(key, node);
        this.recs.set(key, added);
        if (!this.broken) this.linkAdded(added);
        changed = true;
      } else if (rec.node.ppid !== node.ppid) {
        if (!this.broken) this.unlink(rec);
        rec.node = node;
        if (!this.broken) this.link(rec);
        changed = true;
      } else {
        // Children name their parent's command (a zombie's reaper): an exec renews their rows.
        if (rec.node.command !== node.command && !this.broken && this.childrenOf(rec).length > 0) {
          for (const child of this.childrenOf(rec)) this.changed.push(child);
          changed = true;
        } else if (rec.node.command !== node.command && this.broken) changed = true;
        rec.node = node;
      }
    }
    if (!this.broken && this.linked.length > 0) this.checkNewLinks();
    if (changed && this.broken) this.rootsChanged = true; // rows from scratch at the next rows()
    return changed;
  }

  /** The rows, depth first; the same array while nothing changed, a spliced copy when something did. */
  rows(collapsed: ReadonlySet<string>): TreeRow[] {
    if (collapsed !== this.collapsed) this.noteToggles(collapsed);
    if (this.changed.length === 0 && !this.rootsChanged) return this.rowsOut;
    if (this.broken) return this.rowsFromScratch();
    const marked = this.markPaths();
    const rows: TreeRow[] = [];
    const recsOut: Rec[] = [];
    const oldRows = this.rowsOut;
    const oldRecs = this.recsOut;
    const frames: Frame[] = [];
    const visit = (rec: Rec, depth: number) => {
      if (!rec.touched && rec.index >= 0 && rec.depth === depth) {
        // Nothing changed in this subtree: its rows, as they were.
        const end = rec.index + rec.span;
        for (let i = rec.index; i < end; i += 1) {
          rows.push(oldRows[i] as TreeRow);
          recsOut.push(oldRecs[i] as Rec);
        }
        return;
      }
      const kids = this.childrenOf(rec);
      rows.push(this.rowOf(rec, depth, kids.length));
      recsOut.push(rec);
      rec.depth = depth;
      frames.push({ rec, depth, kids: collapsed.has(rec.key) ? NO_RECS : kids, next: 0, start: rows.length - 1 });
    };
    for (const root of this.roots) {
      visit(root, 0);
      while (frames.length > 0) {
        const top = frames[frames.length - 1] as Frame;
        if (top.next < top.kids.length) visit(top.kids[top.next++] as Rec, top.depth + 1);
        else {
          top.rec.span = rows.length - top.start;
          frames.pop();
        }
      }
    }
    for (const rec of oldRecs) rec.index = -1;
    for (let i = 0; i < recsOut.length; i += 1) (recsOut[i] as Rec).index = i;
    for (const rec of marked) rec.touched = false;
    this.rowsOut = rows;
    this.recsOut = recsOut;
    return rows;
  }

  private newRec(key: string, node: ProcessNode): Rec {
    return { key, node, alive: true, touched: false, index: -1, depth: 0, span: 0, row: null };
  }

  private parentOf(rec: Rec): Rec | undefined {
    const { pid, ppid } = rec.node;
    return ppid === pid ? undefined : this.byPid.get(ppid);
  }

  private childrenOf(rec: Rec): readonly Rec[] {
    return this.kids.get(rec.node.pid) ?? NO_RECS;
  }

  private rowOf(rec: Rec, depth: number, childCount: number): TreeRow {
    const parent = this.parentOf(rec)?.node ?? null;
    const before = rec.row;
    if (
      before !== null &&
      before.depth === depth &&
      before.childCount === childCount &&
      before.context === undefined &&
      sameParent(before.parent, parent)
    )
      return before;
    rec.row = { key: rec.key, node: rec.node, depth, childCount, parent };
    return rec.row;
  }

  /** Puts a process under its parent (or among the roots) by its current ppid. */
  private link(rec: Rec): void {
    const { pid, ppid } = rec.node;
    if (ppid !== pid) {
      const siblings = this.kids.get(ppid);
      if (siblings) insertSorted(siblings, rec);
      else this.kids.set(ppid, [rec]);
    }
    const parent = this.parentOf(rec);
    if (parent) this.changed.push(parent);
    else {
      insertSorted(this.roots, rec);
      this.rootsChanged = true;
    }
    this.changed.push(rec);
    this.linked.push(rec);
  }

  private unlink(rec: Rec): void {
    const { pid, ppid } = rec.node;
    if (ppid !== pid) {
      const siblings = this.kids.get(ppid);
      if (siblings) {
        removeSorted(siblings, rec);
        if (siblings.length === 0) this.kids.delete(ppid);
      }
    }
    const parent = this.parentOf(rec);
    if (parent) this.changed.push(parent);
    else {
      removeSorted(this.roots, rec);
      this.rootsChanged = true;
    }
  }

  private linkAdded(rec: Rec): void {
    if (this.byPid.has(rec.node.pid)) {
      this.broken = true; // a second entry with one pid: the tree cannot say whose children are whose
      return;
    }
    this.byPid.set(rec.node.pid, rec);
    // Its children may have come first (they were roots until now).
    for (const child of this.childrenOf(rec)) {
      removeSorted(this.roots, child);
      this.rootsChanged = true;
      this.changed.push(child);
      this.linked.push(child);
    }
    this.link(rec);
  }

  private unlinkRemoved(rec: Rec): void {
    this.unlink(rec);
    this.byPid.delete(rec.node.pid);
    // Its children stay listed under its pid (a process reusing the pid would not adopt them:
    // they keep their ppid only until the host reports their new parent) and become roots.
    for (const child of this.childrenOf(rec)) {
      insertSorted(this.roots, child);
      this.rootsChanged = true;
      this.changed.push(child);
    }
  }

  /** A new link closes a cycle only through the linked process: walk up from each, bounded by the table. */
  private checkNewLinks(): void {
    for (const rec of this.linked) {
      if (!rec.alive) continue;
      let steps = 0;
      for (let up = this.parentOf(rec); up !== undefined; up = this.parentOf(up)) {
        steps += 1;
        if (up === rec || steps > this.recs.size) {
          this.broken = true;
          break;
        }
      }
      if (this.broken) break;
    }
    this.linked.length = 0;
  }

  private noteToggles(collapsed: ReadonlySet<string>): void {
    for (const key of collapsed) if (!this.collapsed.has(key)) this.noteKey(key);
    for (const key of this.collapsed) if (!collapsed.has(key)) this.noteKey(key);
    this.collapsed = collapsed;
  }

  private noteKey(key: string): void {
    const rec = this.recs.get(key);
    if (rec) this.changed.push(rec);
  }

  /** Marks every changed process and its ancestors (the set stays closed upwards); returns them to unmark. */
  private markPaths(): Rec[] {
    const marked: Rec[] = [];
    for (const rec of this.changed) {
      if (!rec.alive) continue;
      for (let up: Rec | undefined = rec; up !== undefined && !up.touched; up = this.parentOf(up)) {
        up.touched = true;
        marked.push(up);
      }
    }
    this.changed.length = 0;
    this.rootsChanged = false;
    return marked;
  }

  /** Links every process again from the table (a full diff, or a broken table made whole). */
  private rebuild(): void {
    this.byPid.clear();
    this.kids.clear();
    this.roots = [];
    this.changed.length = 0;
    this.linked.length = 0;
    this.rowsOut = [];
    this.recsOut = [];
    this.rootsChanged = true;
    this.broken = false;
    for (const rec of this.recs.values()) {
      rec.index = -1;
      if (this.byPid.has(rec.node.pid)) this.broken = true;
      this.byPid.set(rec.node.pid, rec);
    }
    if (this.broken) return;
    for (const rec of this.recs.values()) {
      const { pid, ppid } = rec.node;
      if (ppid === pid) continue;
      const siblings = this.kids.get(ppid);
      if (siblings) siblings.push(rec);
      else this.kids.set(ppid, [rec]);
    }
    for (const siblings of this.kids.values()) siblings.sort((a, b) => a.node.pid - b.node.pid);
    for (const rec of this.recs.values()) if (this.parentOf(rec) === undefined) this.roots.push(rec);
    this.roots.sort((a, b) => a.node.pid - b.node.pid);
    if (this.hasCycle()) this.broken = true;
  }

  /** Whether following parents from some process never reaches a root (a functional graph's cycle). */
  private hasCycle(): boolean {
    // Each walk stamps what it passes; meeting its own stamp again is a cycle, another's is known ground.
    const walkOf = new Map<Rec, number>();
    let walk = 0;
    for (const start of this.recs.values()) {
      walk += 1;
      for (let up: Rec | undefined = start; up !== undefined; up = this.parentOf(up)) {
        const seen = walkOf.get(up);
        if (seen === walk) return true;
        if (seen !== undefined) break;
        walkOf.set(up, walk);
      }
    }
    return false;
  }

  private *entries(): Generator<readonly [string, ProcessNode]> {
    for (const [key, rec] of this.recs) yield [key, rec.node];
  }

  /** The broken table's rows (reusing the last row objects), and back to splicing once it is whole. */
  private rowsFromScratch(): TreeRow[] {
    this.rebuild(); // clears the pending changes
    this.rootsChanged = !this.broken;
    if (!this.broken) return this.rows(this.collapsed);
    const reuse: Map<string, TreeRow> = new Map();
    for (const rec of this.recs.values()) if (rec.row) reuse.set(rec.key, rec.row);
    const rows = flattenEntries(this.entries(), this.collapsed, reuse as RowReuse);
    for (const row of rows) {
      const rec = this.recs.get(row.key);
      if (rec) rec.row = row;
    }
    this.rowsOut = rows;
    return rows;
  }
}
