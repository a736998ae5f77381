/**
 * The system view's shortcuts at scale give the answers of the slow paths they replace: the
 * flag pre-check never drops a flag the full computation raises, the zombie count kept by diffs
 * equals a recount, and a re-flattened tree hands back the same row objects only where nothing
 * a row shows about its place changed.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_FLAG_SETTINGS } from '../src/model/flag-settings';
import { HistoryBook } from '../src/model/history';
import { identityKey } from '../src/model/identity';
import { filterSystemRows } from '../src/model/tree';
import { flagsOf } from '../src/model/trend';
import { computeFlags } from '../src/store/history-slice';
import { applySystemDiffWithShape, countZombies } from '../src/store/system-diff';
import { makeProcess } from './fixtures';

const MIB = 1024 * 1024;
const SAMPLE_SPACING_MS = 5000;

/** A small deterministic generator, so a failure names a reproducible series. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('system flags pre-check', () => {
  it('flags exactly what the full computation flags, over many random series', () => {
    const random = seeded(7);
    const book = new HistoryBook(120);
    const keys = Array.from({ length: 300 }, (_, index) => `${index + 2}:1`);
    const memory = new Map(keys.map((key) => [key, 100 * MIB]));
    const kinds = new Set<string>();
    for (let pass = 0; pass < 100; pass += 1) {
      book.recordPass(
        pass * SAMPLE_SPACING_MS,
        keys.map((key, index) => {
          // A third spin near the threshold, a third grow around the rate threshold, the rest wander.
          const kind = index % 3;
          const grown = (memory.get(key) ?? 0) + (kind === 1 ? random() * 4 * MIB : (random() - 0.5) * MIB);
          memory.set(key, grown);
          // Half the spinners stay at or above the 90 % threshold, the other half dip below it now and then.
          const cpu = kind === 0 ? (index % 2 === 0 ? 90 : 85) + random() * 10 : random() * 100;
          return [key, random() < 0.02 ? null : cpu, grown] as const;
        }),
      );
      const quick = computeFlags(book, keys, DEFAULT_FLAG_SETTINGS);
      const full = new Map(
        keys
          .map((key) => [key, flagsOf(book.ring(key)?.samples() ?? [], DEFAULT_FLAG_SETTINGS)] as const)
          .filter(([, flags]) => flags.length > 0),
      );
      expect([...quick.keys()].sort()).toEqual([...full.keys()].sort());
      for (const flags of full.values()) for (const flag of flags) kinds.add(flag.kind);
    }
    // The series must raise both kinds somewhere, or the comparison proved nothing.
    expect([...kinds].sort()).toEqual(['cpu', 'memory']);
  });
});

describe('zombie count kept by diffs', () => {
  it('equals a recount after exits, births, zombies reaped and processes turning zombie', () => {
    const nodes = Array.from({ length: 50 }, (_, index) =>
      makeProcess({ pid: index + 10, state: index % 4 === 0 ? 'Z' : 'S' }),
    );
    let { table, zombies } = applySystemDiffWithShape(new Map(), {
      type: 'systemDiff',
      full: true,
      upserts: nodes,
      removed: [],
    });
    expect(zombies).toBe(countZombies(table));
    const turned = { ...(nodes[1] as (typeof nodes)[number]), state: 'Z' };
    const revived = { ...(nodes[4] as (typeof nodes)[number]), state: 'S' }; // same identity, state corrected
    const step = applySystemDiffWithShape(
      table,
      {
        type: 'systemDiff',
        full: false,
        upserts: [turned, revived, makeProcess({ pid: 999, state: 'Z' })],
        removed: [
          identityKey(nodes[0] as (typeof nodes)[number]),
          identityKey(nodes[2] as (typeof nodes)[number]),
          'absent:1',
        ],
      },
      zombies,
    );
    ({ table, zombies } = step);
    expect(zombies).toBe(countZombies(table));
  });
});

describe('row reuse across re-flattens', () => {
  it('keeps the row objects of unmoved processes and renews those whose place changed', () => {
    const root = makeProcess({ pid: 1, ppid: 0 });
    const a = makeProcess({ pid: 20, ppid: 1 });
    const b = makeProcess({ pid: 30, ppid: 1 });
    const child = makeProcess({ pid: 31, ppid: 30 });
    const table = new Map([root, a, b, child].map((node) => [identityKey(node), node]));
    const query = { text: '', filter: 'all' as const, uid: null };
    const first = filterSystemRows(table, query, new Set());
    const reuse = new Map(first.map((row) => [row.key, row]));
    // b's child exits (b's child count changes); a new process appears under a.
    table.delete(identityKey(child));
    const born = makeProcess({ pid: 21, ppid: 20 });
    table.set(identityKey(born), born);
    const second = filterSystemRows(table, query, new Set(), reuse);
    const byKey = new Map(second.map((row) => [row.key, row]));
    expect(byKey.get(identityKey(root))).toBe(reuse.get(identityKey(root)));
    expect(byKey.get(identityKey(b))).not.toBe(reuse.get(identityKey(b)));
    expect(byKey.get(identityKey(b))?.childCount).toBe(0);
    expect(byKey.get(identityKey(a))).not.toBe(reuse.get(identityKey(a)));
    expect(second.map((row) => row.node.pid)).toEqual([1, 20, 21, 30]);
  });
});
