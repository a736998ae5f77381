/**
 * The spliced system tree shows exactly what a from-scratch flatten of the same table shows, after
 * every diff of long random series: exits, births, pid reuse, reparenting (cycles included, as a
 * torn read can give), zombies, execs, duplicate pids, full diffs, collapse and expand, and
 * stretches where a search or filter hides the tree (diffs pile up unseen). It hands back a row
 * object again wherever the row is unchanged, and it says "changed" whenever the rows did.
 */
import type { ProcessNode } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { identityKey } from '../src/model/identity';
import { SystemTree } from '../src/model/system-tree';
import { flattenEntries, type TreeRow } from '../src/model/tree';
import { applySystemDiffInPlace, type SystemDiff } from '../src/store/system-diff';
import { makeProcess } from './fixtures';

/** A small deterministic generator, so a failure names a reproducible series. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** What a row shows about its place; the node itself is read from the table by key. */
function shown(row: TreeRow) {
  const parent = row.parent === null ? null : `${row.parent.pid}:${row.parent.startTime}:${row.parent.command}`;
  return { key: row.key, depth: row.depth, childCount: row.childCount, parent, context: row.context };
}

interface Series {
  random: () => number;
  table: Map<string, ProcessNode>;
  nextStart: number;
}

function pick<T>(random: () => number, items: readonly T[]): T | undefined {
  return items[Math.floor(random() * items.length)];
}

/** A pid from a small range, so pids are reused and parents come back. */
function somePid(series: Series, range: number): number {
  return 1 + Math.floor(series.random() * range);
}

function born(series: Series, pid: number, ppid: number): ProcessNode {
  series.nextStart += 1;
  return makeProcess({ pid, ppid, startTime: String(series.nextStart), command: `cmd-${pid % 5}` });
}

/** One random diff over the table (not applied yet). */
function randomDiff(series: Series, range: number): SystemDiff {
  const { random, table } = series;
  const nodes = [...table.values()];
  const livePids = new Set(nodes.map((node) => node.pid));
  const upserts: ProcessNode[] = [];
  const removed: string[] = [];
  const touched = new Set<string>();
  const someone = () => {
    const node = pick(random, nodes);
    if (node === undefined || touched.has(identityKey(node))) return undefined;
    touched.add(identityKey(node));
    return node;
  };
  if (random() < 0.03) {
    // A full table: some kept, some new.
    const kept = nodes.filter(() => random() < 0.8);
    const fresh = Array.from({ length: Math.floor(random() * 5) }, () => born(series, somePid(series, range), 1));
    const pids = new Set(kept.map((node) => node.pid));
    return {
      type: 'systemDiff',
      full: true,
      upserts: [...kept, ...fresh.filter((n) => !pids.has(n.pid))],
      removed: [],
    };
  }
  const operations = 1 + Math.floor(random() * 6);
  for (let i = 0; i < operations; i += 1) {
    const roll = random();
    if (roll < 0.25) {
      // A birth under a live parent, an absent one, or pid 1; rarely its own parent.
      const pid = somePid(series, range);
      if (livePids.has(pid) && random() < 0.97) continue;
      const ppid = random() < 0.05 ? pid : random() < 0.7 ? (pick(random, nodes)?.pid ?? 1) : somePid(series, range);
      upserts.push(born(series, pid, ppid));
      livePids.add(pid);
    } else if (roll < 0.45) {
      const node = someone();
      if (node) removed.push(identityKey(node));
    } else if (roll < 0.55) {
      // pid reuse: the old identity goes and a new one takes its pid, in the same diff.
      const node = someone();
      if (node) {
        removed.push(identityKey(node));
        upserts.push(born(series, node.pid, pick(random, nodes)?.pid ?? 1));
      }
    } else if (roll < 0.7) {
      // Reparenting: to init (an orphan), to another process (a cycle now and then), to an absent pid.
      const node = someone();
      const ppid = random() < 0.4 ? 1 : random() < 0.8 ? (pick(random, nodes)?.pid ?? 1) : somePid(series, range);
      if (node) upserts.push({ ...node, ppid });
    } else if (roll < 0.8) {
      const node = someone();
      if (node) upserts.push({ ...node, state: node.state === 'Z' ? 'S' : 'Z', cpuPercent: undefined });
    } else if (roll < 0.87) {
      const node = someone();
      if (node) upserts.push({ ...node, command: `exec-${Math.floor(random() * 3)}` });
    } else {
      const node = someone();
      if (node) upserts.push({ ...node, cpuPercent: random() * 100, rssBytes: Math.floor(random() * 1e9) });
    }
  }
  return { type: 'systemDiff', full: false, upserts, removed };
}

function toggled(random: () => number, collapsed: ReadonlySet<string>, table: Map<string, ProcessNode>) {
  const next = new Set(collapsed);
  const key = random() < 0.2 ? pick(random, [...collapsed]) : pick(random, [...table.keys()]);
  if (key === undefined) return collapsed;
  if (next.has(key)) next.delete(key);
  else next.add(key);
  return next;
}

function runSeries(seed: number, steps: number, range: number): { broken: number; cycles: number } {
  const series: Series = { random: seeded(seed), table: new Map(), nextStart: 1000 };
  const tree = new SystemTree();
  const first = Array.from({ length: range / 2 }, (_, index) =>
    born(series, index + 1, index === 0 ? 0 : 1 + Math.floor(series.random() * index)),
  );
  const full = { type: 'systemDiff' as const, full: true, upserts: first, removed: [] };
  applySystemDiffInPlace(series.table, full);
  tree.apply(full);
  let collapsed: ReadonlySet<string> = new Set();
  let shownRows = tree.rows(collapsed);
  let stale = false;
  let hidden = 0;
  let broken = 0;
  const seenRow = new Map<string, TreeRow>();
  for (let step = 0; step < steps; step += 1) {
    const diff = randomDiff(series, range);
    if (series.random() < 0.02) {
      // Two entries with one pid (a torn read): the tree must not lose either's subtree.
      const twin = pick(series.random, [...series.table.values()]);
      if (twin) diff.upserts = [...diff.upserts, born(series, twin.pid, 1)];
    }
    applySystemDiffInPlace(series.table, diff);
    // The view asks for rows only when the store says the shape changed (or the collapse did).
    if (tree.apply(diff)) stale = true;
    if (series.random() < 0.15) {
      collapsed = toggled(series.random, collapsed, series.table);
      stale = true;
    }
    // A search or filter now and then: the plain tree is not asked for its rows meanwhile.
    if (hidden > 0) {
      hidden -= 1;
      continue;
    }
    if (series.random() < 0.05) {
      hidden = 1 + Math.floor(series.random() * 5);
      continue;
    }
    const before = shownRows;
    if (stale) shownRows = tree.rows(collapsed);
    stale = false;
    const expected = flattenEntries(series.table, collapsed);
    expect(shownRows.map(shown), `seed ${seed} step ${step}`).toEqual(expected.map(shown));
    if (shownRows === before) expect(expected.map(shown)).toEqual(before.map(shown));
    // A row that shows the same place is the same object (memoised rows skip re-rendering).
    for (const row of shownRows) {
      const last = seenRow.get(row.key);
      if (last !== undefined && JSON.stringify(shown(last)) === JSON.stringify(shown(row)))
        expect(row, `seed ${seed} step ${step}: row ${row.key} renewed`).toBe(last);
      seenRow.set(row.key, row);
    }
    const pids = [...series.table.values()].map((node) => node.pid);
    if (new Set(pids).size !== pids.length) broken += 1;
  }
  return { broken, cycles: countCycles(series.table) };
}

/** Processes of the table that sit on a ppid cycle (none is ever shown by either flatten). */
function countCycles(table: Map<string, ProcessNode>): number {
  const byPid = new Map([...table.values()].map((node) => [node.pid, node]));
  let count = 0;
  for (const start of byPid.values()) {
    let up: ProcessNode | undefined = start;
    for (let steps = 0; up !== undefined && steps <= byPid.size; steps += 1) {
      up = up.ppid === up.pid ? undefined : byPid.get(up.ppid);
      if (up === start) {
        count += 1;
        break;
      }
    }
  }
  return count;
}

describe('spliced system tree', () => {
  it('equals a from-scratch flatten after every diff of random series', { timeout: 60_000 }, () => {
    let brokenSteps = 0;
    for (let seed = 1; seed <= 30; seed += 1) brokenSteps += runSeries(seed, 300, 60).broken;
    // The series must reach the duplicate-pid fallback, or the comparison proved nothing there.
    expect(brokenSteps).toBeGreaterThan(0);
  });

  it('equals it on a larger, deeper table too', { timeout: 60_000 }, () => {
    for (let seed = 100; seed <= 101; seed += 1) runSeries(seed, 60, 1000);
  });

  it('reaches ppid cycles in its series and comes back from them', () => {
    // Reparenting to a random process closes cycles now and then; the comparison above covers
    // the steps while they last. This checks a cycle forms, and that the tree heals after.
    const series: Series = { random: seeded(5), table: new Map(), nextStart: 1 };
    const tree = new SystemTree();
    const a = born(series, 10, 1);
    const b = born(series, 11, 10);
    const init = born(series, 1, 0);
    const start = { type: 'systemDiff' as const, full: true, upserts: [init, a, b], removed: [] };
    applySystemDiffInPlace(series.table, start);
    tree.apply(start);
    expect(tree.rows(new Set()).map((row) => row.node.pid)).toEqual([1, 10, 11]);
    const loop = { type: 'systemDiff' as const, full: false, upserts: [{ ...a, ppid: 11 }], removed: [] };
    applySystemDiffInPlace(series.table, loop);
    expect(tree.apply(loop)).toBe(true);
    expect(countCycles(series.table)).toBe(2);
    expect(tree.rows(new Set()).map(shown)).toEqual(flattenEntries(series.table, new Set()).map(shown));
    const healed = { type: 'systemDiff' as const, full: false, upserts: [{ ...a, ppid: 1 }], removed: [] };
    applySystemDiffInPlace(series.table, healed);
    tree.apply(healed);
    expect(tree.rows(new Set()).map((row) => row.node.pid)).toEqual([1, 10, 11]);
  });

  it('hands back the same rows array when a diff only moves CPU and memory', () => {
    const tree = new SystemTree();
    const nodes = [makeProcess({ pid: 1, ppid: 0 }), makeProcess({ pid: 2, ppid: 1 })];
    tree.apply({ full: true, upserts: nodes, removed: [] });
    const collapsed = new Set<string>();
    const rows = tree.rows(collapsed);
    expect(tree.apply({ full: false, upserts: [{ ...(nodes[1] as ProcessNode), cpuPercent: 99 }], removed: [] })).toBe(
      false,
    );
    expect(tree.rows(collapsed)).toBe(rows);
  });
});
