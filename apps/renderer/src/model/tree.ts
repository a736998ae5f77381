/**
 * Nests flat process lists by ppid and flattens them back into display rows (depth-first), so
 * one row component serves both a run's tree and the virtualised system-wide tree.
 */
import type { ProcessNode } from '@treewarden/protocol';
import { identityKey } from './identity';
import { lowestPort } from './ports';

export interface TreeRow {
  key: string;
  node: ProcessNode;
  depth: number;
  childCount: number;
  /** The parent row's node when the parent is in the same list (used to name the non-reaping parent). */
  parent: ProcessNode | null;
  /** Shown only because a descendant matched the search or filter (set by filterSystemRows). */
  context?: boolean;
}

/** Groups children by ppid, each group sorted by pid so rows do not jump between polls. */
function indexChildren(entries: Iterable<readonly [string, ProcessNode]>): {
  byPid: Map<number, ProcessNode>;
  keys: Map<number, string>;
  children: Map<number, ProcessNode[]>;
} {
  const byPid = new Map<number, ProcessNode>();
  const keys = new Map<number, string>();
  const children = new Map<number, ProcessNode[]>();
  for (const [key, node] of entries) {
    byPid.set(node.pid, node);
    keys.set(node.pid, key);
  }
  for (const node of byPid.values()) {
    if (node.ppid === node.pid) continue; // its own parent: a root, not its own child
    const siblings = children.get(node.ppid);
    if (siblings) siblings.push(node);
    else children.set(node.ppid, [node]);
  }
  for (const siblings of children.values()) if (siblings.length > 1) siblings.sort((a, b) => a.pid - b.pid);
  return { byPid, keys, children };
}

/**
 * Rows of the last flatten, by key: a row whose place (depth, children, parent) is unchanged is
 * handed out again as the same object, so memoised rows do not re-render when the tree changes
 * elsewhere (the system view reads the current node from its table, not from the row).
 */
export type RowReuse = ReadonlyMap<string, TreeRow>;

/** Same parent process, as a row shows it (its identity and the command named for a zombie's reaper). */
export function sameParent(a: ProcessNode | null, b: ProcessNode | null): boolean {
  if (a === b) return true;
  return a !== null && b !== null && a.pid === b.pid && a.startTime === b.startTime && a.command === b.command;
}

function reuseRow(previous: RowReuse | undefined, row: TreeRow): TreeRow {
  const before = previous?.get(row.key);
  return before !== undefined &&
    before.depth === row.depth &&
    before.childCount === row.childCount &&
    before.context === row.context &&
    sameParent(before.parent, row.parent)
    ? before
    : row;
}

/**
 * Depth-first rows of entries keyed by identity (the store's table). A node whose parent is
 * absent (or is itself: pid 1's ppid 0) is a root. `collapsed` holds identity keys whose
 * subtrees are hidden. One pass of plain arrays: it runs on 20,000 processes whenever one exits.
 */
export function flattenEntries(
  entries: Iterable<readonly [string, ProcessNode]>,
  collapsed: ReadonlySet<string> = new Set(),
  previous?: RowReuse,
): TreeRow[] {
  const { byPid, keys, children } = indexChildren(entries);
  const roots: ProcessNode[] = [];
  for (const node of byPid.values()) if (node.ppid === node.pid || !byPid.has(node.ppid)) roots.push(node);
  roots.sort((a, b) => a.pid - b.pid);
  const rows: TreeRow[] = [];
  const stackNodes: ProcessNode[] = [];
  const stackDepths: number[] = [];
  for (let i = roots.length - 1; i >= 0; i -= 1) {
    stackNodes.push(roots[i] as ProcessNode);
    stackDepths.push(0);
  }
  const seen = new Set<number>();
  while (stackNodes.length > 0) {
    const node = stackNodes.pop() as ProcessNode;
    const depth = stackDepths.pop() as number;
    if (seen.has(node.pid)) continue; // a ppid cycle in a torn table must not loop forever
    seen.add(node.pid);
    const kids = children.get(node.pid);
    const key = keys.get(node.pid) as string;
    const parent = node.ppid === node.pid ? null : (byPid.get(node.ppid) ?? null);
    const row = { key, node, depth, childCount: kids?.length ?? 0, parent };
    rows.push(reuseRow(previous, row));
    if (kids === undefined || collapsed.has(key)) continue;
    for (let i = kids.length - 1; i >= 0; i -= 1) {
      stackNodes.push(kids[i] as ProcessNode);
      stackDepths.push(depth + 1);
    }
  }
  return rows;
}

/** Depth-first rows of a list of nodes (a run's tree); see flattenEntries. */
export function flattenTree(nodes: Iterable<ProcessNode>, collapsed: ReadonlySet<string> = new Set()): TreeRow[] {
  const entries: Array<readonly [string, ProcessNode]> = [];
  for (const node of nodes) entries.push([identityKey(node), node]);
  return flattenEntries(entries, collapsed);
}

export type SystemFilter = 'all' | 'mine' | 'zombies' | 'escaped' | 'flagged';

export interface SystemQuery {
  text: string;
  filter: SystemFilter;
  /** uid of the "mine" filter; null when unknown. */
  uid: number | null;
  /** Identity keys the "flagged" filter keeps. */
  flagged?: ReadonlySet<string> | ReadonlyMap<string, unknown>;
}

function matchesQuery(node: ProcessNode, query: SystemQuery, needle: string): boolean {
  if (query.filter === 'zombies' && !node.state.startsWith('Z')) return false;
  if (query.filter === 'escaped' && !node.escaped) return false;
  if (query.filter === 'flagged' && !query.flagged?.has(identityKey(node))) return false;
  if (query.filter === 'mine' && query.uid !== null && node.uid !== query.uid) return false;
  if (needle === '') return true;
  return (
    String(node.pid) === needle ||
    node.commandLine.toLowerCase().includes(needle) ||
    node.command.toLowerCase().includes(needle)
  );
}

/**
 * Rows for the system view: with no search the full tree; with a search or filter, the matches
 * plus their ancestors (so a match is always shown where it lives in the tree).
 */
export function filterSystemRows(
  nodes: Map<string, ProcessNode>,
  query: SystemQuery,
  collapsed: ReadonlySet<string>,
  previous?: RowReuse,
): TreeRow[] {
  const needle = query.text.trim().toLowerCase();
  if (needle === '' && query.filter === 'all') return flattenEntries(nodes, collapsed, previous);
  const byPid = new Map<number, ProcessNode>();
  for (const node of nodes.values()) byPid.set(node.pid, node);
  const keep = new Map<number, ProcessNode>();
  for (const node of byPid.values()) {
    if (!matchesQuery(node, query, needle)) continue;
    let current: ProcessNode | undefined = node;
    while (current && !keep.has(current.pid)) {
      keep.set(current.pid, current);
      current = current.ppid === current.pid ? undefined : byPid.get(current.ppid);
    }
  }
  const rows = flattenTree(keep.values(), collapsed);
  for (const row of rows) if (!matchesQuery(row.node, query, needle)) row.context = true;
  return rows;
}

export type SystemSortKey = 'pid' | 'cpu' | 'memory' | 'age' | 'ports';

const SORT_VALUE: Record<SystemSortKey, (node: ProcessNode) => number> = {
  pid: (node) => node.pid,
  // Unknown CPU (just seen) sorts below every measured value, a 0 included.
  cpu: (node) => node.cpuPercent ?? -1,
  memory: (node) => node.rssBytes,
  // Older processes started earlier: age grows as the start time shrinks.
  age: (node) => -node.startedAtMs,
  ports: lowestPort,
};

/** Listeners first in either direction: "no port" is not a port number to sort among. */
function compareBy(sort: { key: SystemSortKey; direction: 'ascending' | 'descending' }) {
  const value = SORT_VALUE[sort.key];
  const sign = sort.direction === 'ascending' ? 1 : -1;
  return (a: ProcessNode, b: ProcessNode): number => {
    const left = value(a);
    const right = value(b);
    if (left === right) return a.pid - b.pid;
    if (!Number.isFinite(left)) return 1;
    if (!Number.isFinite(right)) return -1;
    return sign * (left - right);
  };
}

/**
 * A flat list sorted by one column (ties broken by pid, so rows do not jump between polls).
 * Sorting by CPU in a tree would bury a busy grandchild under an idle root, so sorted rows are flat
 * and only the matches are listed (no ancestors for context).
 */
export function sortSystemRows(
  nodes: Map<string, ProcessNode>,
  query: SystemQuery,
  sort: { key: SystemSortKey; direction: 'ascending' | 'descending' },
): TreeRow[] {
  const needle = query.text.trim().toLowerCase();
  const byPid = new Map<number, ProcessNode>();
  for (const node of nodes.values()) byPid.set(node.pid, node);
  const matches = [...byPid.values()].filter((node) => matchesQuery(node, query, needle));
  matches.sort(compareBy(sort));
  return matches.map((node) => ({
    key: identityKey(node),
    node,
    depth: 0,
    childCount: 0,
    parent: byPid.get(node.ppid) ?? null,
  }));
}
