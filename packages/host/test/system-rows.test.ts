/**
 * The system view's rows, kept between polls: a process whose entry object the poll worker kept
 * (it did not run) keeps its row and is not sent again; what changes (CPU, sockets, a new entry) is
 * sent; a recycled pid is a removal and a new identity; and the diffs, applied one after another
 * as a UI does, always add up to the rows.
 */
import type { ProcessEntry } from '@treewarden/engine';
import type { ListeningSocket, ProcessNode } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { applySystemDiff, nodeKey, type SystemDiff } from '../src/snapshot/system-diff.js';
import { createSystemRows, type SystemRows } from '../src/snapshot/system-rows.js';

function entry(cpuTimeMs: number, overrides: Partial<ProcessEntry> = {}): ProcessEntry {
  return {
    pid: 4242,
    startTime: '777',
    ppid: 1,
    pgid: 4242,
    sid: 4242,
    state: 'S',
    uid: 1000,
    command: 'node',
    args: ['node', 'server.js'],
    cwd: '/srv',
    cpuTimeMs,
    rssBytes: 4096,
    startedAtMs: 1_000,
    ...overrides,
  };
}

const key = '4242:777';
const table = (...entries: ProcessEntry[]) => new Map(entries.map((e) => [e.pid, e]));
const byKey = (rows: SystemRows) => new Map(rows.nodes().map((node) => [nodeKey(node), node]));

describe('system rows kept between polls', () => {
  it('sends a sleeping process once it has a percent, then not again; a run makes a new row', () => {
    const rows = createSystemRows();
    const sleeping = entry(50);
    const first = rows.update(table(sleeping), 1_000, []);
    // The first update is full, and first sight has no CPU % yet (unknown, not 0).
    expect(first.full).toBe(true);
    expect(first.upserts.map((node) => node.cpuPercent)).toEqual([undefined]);
    const second = rows.update(table(sleeping), 2_000, []);
    expect(second).toEqual({ full: false, upserts: [expect.objectContaining({ cpuPercent: 0 })], removed: [] });
    const sent = byKey(rows).get(key);
    expect(rows.update(table(sleeping), 3_000, [])).toEqual({ full: false, upserts: [], removed: [] });
    expect(byKey(rows).get(key)).toBe(sent);

    // Ran 500 ms in the last second: another entry object, a new row at 50 %.
    const ran = rows.update(table(entry(550)), 4_000, []);
    expect(ran.upserts.map((node) => node.cpuPercent)).toEqual([50]);
  });

  it('sends the same entry again when its sockets change, and not when they read the same', () => {
    const rows = createSystemRows();
    const sleeping = entry(50);
    rows.update(table(sleeping), 1_000, []);
    rows.update(table(sleeping), 2_000, []);
    const sockets: readonly ListeningSocket[] = [{ proto: 'tcp', address: '127.0.0.1', port: 3000 }];
    const listening = rows.update(table(sleeping), 3_000, [], () => sockets);
    expect(listening.upserts.map((node) => node.listening)).toEqual([sockets]);
    // The next port read makes new arrays with the same sockets: nothing to send.
    const again = rows.update(table(sleeping), 4_000, [], () => [...sockets]);
    expect(again.upserts).toEqual([]);
  });

  it('takes a recycled pid for a removal and a new process without a percent', () => {
    const rows = createSystemRows();
    rows.update(table(entry(50)), 1_000, []);
    const recycled = rows.update(table(entry(9_000, { startTime: '900' })), 2_000, []);
    expect(recycled.removed).toEqual([key]);
    expect(recycled.upserts.map((node) => [nodeKey(node), node.cpuPercent])).toEqual([['4242:900', undefined]]);
    const gone = rows.update(table(), 3_000, []);
    expect(gone).toEqual({ full: false, upserts: [], removed: ['4242:900'] });
  });

  it('after resync sends every row in a full diff', () => {
    const rows = createSystemRows();
    const a = entry(10);
    const b = entry(10, { pid: 5, startTime: '5' });
    rows.update(table(a, b), 1_000, []);
    rows.update(table(a, b), 2_000, []);
    rows.resync();
    const full = rows.update(table(a, b), 3_000, []);
    expect(full.full).toBe(true);
    expect(full.removed).toEqual([]);
    expect(full.upserts.map(nodeKey).sort()).toEqual(['4242:777', '5:5']);
    expect(rows.update(table(a, b), 4_000, []).full).toBe(false);
  });

  it('yields diffs that add up to the rows over a churning table', () => {
    const rows = createSystemRows();
    let shown: Map<string, ProcessNode> = new Map();
    const apply = (diff: SystemDiff) => {
      shown = applySystemDiff(shown, diff);
    };
    // A deterministic churn: processes start, run, sleep, exit, and pids come back as new ones.
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    let live = new Map<number, ProcessEntry>();
    for (let poll = 1; poll <= 60; poll += 1) {
      const updated = new Map<number, ProcessEntry>();
      for (const [pid, current] of live) {
        const roll = next() % 10;
        if (roll === 0) continue; // exited
        if (roll < 4) updated.set(pid, { ...current, cpuTimeMs: current.cpuTimeMs + (next() % 700) });
        else if (roll === 4) updated.set(pid, { ...current, state: 'R' });
        else updated.set(pid, current); // kept whole, as the worker keeps a sleeper's entry
      }
      for (let born = next() % 4; born > 0; born -= 1) {
        const pid = 100 + (next() % 40);
        updated.set(pid, entry(next() % 100, { pid, startTime: String(poll * 1000 + pid), ppid: 1 }));
      }
      live = updated;
      apply(rows.update(live, poll * 1_000, []));
      expect(shown).toEqual(byKey(rows));
      expect([...shown.keys()].sort()).toEqual([...live.values()].map((e) => `${e.pid}:${e.startTime}`).sort());
    }
  });
});
