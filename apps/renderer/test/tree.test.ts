import { describe, expect, it } from 'vitest';
import { identityKey } from '../src/model/identity';
import { filterSystemRows, flattenTree, type SystemSortKey, sortSystemRows } from '../src/model/tree';
import { makeProcess } from './fixtures';

const root = makeProcess({ pid: 100, ppid: 1 });
const childB = makeProcess({ pid: 120, ppid: 100 });
const childA = makeProcess({ pid: 110, ppid: 100, command: 'sleep', commandLine: 'sleep 60' });
const grandchild = makeProcess({ pid: 130, ppid: 110 });

describe('flattenTree', () => {
  it('nests by ppid, depth first, siblings by pid', () => {
    const rows = flattenTree([grandchild, childB, root, childA]);
    expect(rows.map((row) => [row.node.pid, row.depth])).toEqual([
      [100, 0],
      [110, 1],
      [130, 2],
      [120, 1],
    ]);
    expect(rows[1]?.parent?.pid).toBe(100);
    expect(rows[0]?.childCount).toBe(2);
  });

  it('hides a collapsed subtree but keeps its row', () => {
    const rows = flattenTree([root, childA, childB, grandchild], new Set([identityKey(childA)]));
    expect(rows.map((row) => row.node.pid)).toEqual([100, 110, 120]);
  });

  it('survives a ppid cycle in a torn table', () => {
    const x = makeProcess({ pid: 5, ppid: 6 });
    const y = makeProcess({ pid: 6, ppid: 5 });
    expect(flattenTree([x, y, root]).map((row) => row.node.pid)).toEqual([100]);
  });
});

describe('filterSystemRows', () => {
  const table = new Map([root, childA, childB, grandchild].map((node) => [identityKey(node), node]));

  it('keeps the ancestors of every match so it shows where it lives', () => {
    const rows = filterSystemRows(table, { text: 'sleep', filter: 'all', uid: null }, new Set());
    expect(rows.map((row) => row.node.pid)).toEqual([100, 110]);
  });

  it('filters zombies', () => {
    const zombie = makeProcess({ pid: 140, ppid: 120, state: 'Z' });
    const withZombie = new Map(table).set(identityKey(zombie), zombie);
    const rows = filterSystemRows(withZombie, { text: '', filter: 'zombies', uid: null }, new Set());
    expect(rows.map((row) => row.node.pid)).toEqual([100, 120, 140]);
  });

  it('matches an exact pid', () => {
    const rows = filterSystemRows(table, { text: '130', filter: 'all', uid: null }, new Set());
    expect(rows.at(-1)?.node.pid).toBe(130);
  });
});

describe('system rows: context and sorting', () => {
  const table = new Map(
    [
      root,
      childA,
      childB,
      grandchild,
      makeProcess({ pid: 140, ppid: 1, cpuPercent: 90, rssBytes: 1, startedAtMs: 5 }),
      makeProcess({ pid: 150, ppid: 1, cpuPercent: 0, rssBytes: 9e9, startedAtMs: 1 }),
    ].map((node) => [identityKey(node), node]),
  );

  it('marks the ancestors a search shows only to place a match, and not the match', () => {
    const rows = filterSystemRows(table, { text: 'sleep', filter: 'all', uid: null }, new Set());
    expect(rows.map((row) => [row.node.pid, row.context === true])).toEqual([
      [100, true],
      [110, false],
    ]);
  });

  it('sorts flat by CPU, memory, age or pid, ties by pid, and keeps only matches', () => {
    const query = { text: '', filter: 'all' as const, uid: null };
    const pids = (key: SystemSortKey, direction: 'ascending' | 'descending') =>
      sortSystemRows(table, query, { key, direction }).map((row) => row.node.pid);
    expect(pids('cpu', 'descending')).toEqual([140, 100, 110, 120, 130, 150]);
    expect(pids('memory', 'descending')[0]).toBe(150);
    expect(pids('age', 'descending')[0]).toBe(150); // started first: the oldest
    expect(pids('pid', 'ascending')).toEqual([100, 110, 120, 130, 140, 150]);
    const rows = sortSystemRows(table, { ...query, text: 'sleep' }, { key: 'pid', direction: 'ascending' });
    expect(rows.map((row) => [row.node.pid, row.depth, row.parent?.pid])).toEqual([[110, 0, 100]]);
  });
});
