/**
 * The system view's rows, kept between polls: a process whose entry object the poll worker kept
 * (it did not run) keeps its row and is not sent again; what changes (CPU, sockets, a new entry) is
 * sent; a recycled pid is a removal and a new identity; and the diffs, applied one after another
 * as a UI does, always add up to the rows.
 */
import type { ProcessEntry, TableChanges } from '@treewarden/engine';
import type { ListeningSocket, ProcessNode } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../src/run-record.js';
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

/**
 * A deterministic xorshift32 stream. (The churn tests' first generator multiplied past 2^53 in
 * floating point: every draw was a multiple of 4, so no process was ever born and they compared
 * empty tables.)
 */
function randomFrom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
}

/**
 * One poll's worth of deterministic churn: processes exit, run, change state or sleep (their entry
 * object kept whole, as the worker keeps a sleeper's), and new ones start, some on a pid just freed.
 */
function churn(live: ReadonlyMap<number, ProcessEntry>, poll: number, next: () => number): Map<number, ProcessEntry> {
  const updated = new Map<number, ProcessEntry>();
  for (const [pid, current] of live) {
    const roll = next() % 12;
    if (roll === 0) continue; // exited
    if (roll < 3) updated.set(pid, { ...current, cpuTimeMs: current.cpuTimeMs + (next() % 700) });
    else if (roll === 3) updated.set(pid, { ...current, state: 'R' });
    else updated.set(pid, current);
  }
  for (let born = next() % 4; born > 0; born -= 1) {
    const pid = 100 + (next() % 40);
    updated.set(pid, entry(next() % 100, { pid, startTime: String(poll * 1000 + pid), ppid: 1 }));
  }
  return updated;
}

/** What the poll worker's delta says of `next` against `since`: the pids with other entry objects, and those gone. */
function changesOf(since: ReadonlyMap<number, ProcessEntry>, next: ReadonlyMap<number, ProcessEntry>): TableChanges {
  const changed = new Map<number, ProcessEntry>();
  for (const [pid, current] of next) if (since.get(pid) !== current) changed.set(pid, current);
  const removed = [...since.keys()].filter((pid) => !next.has(pid));
  return { since, changed, removed };
}

/** A run whose members all left its group (the only part of a run record the system rows read). */
function runWithEscaped(members: readonly ProcessEntry[]): RunRecord {
  const membership = { entries: () => members, isEscaped: () => true };
  return { membership } as unknown as RunRecord;
}

/** A diff with its upserts and removals in key order, to compare two diffs of the same rows. */
const sorted = (diff: SystemDiff) => ({
  full: diff.full,
  upserts: [...diff.upserts].sort((a, b) => nodeKey(a).localeCompare(nodeKey(b))),
  removed: [...diff.removed].sort(),
});

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
    const next = randomFrom(7);
    let live = new Map<number, ProcessEntry>();
    let most = 0;
    for (let poll = 1; poll <= 60; poll += 1) {
      const updated = churn(live, poll, next);
      live = updated;
      apply(rows.update(live, poll * 1_000, []));
      expect(shown).toEqual(byKey(rows));
      expect([...shown.keys()].sort()).toEqual([...live.values()].map((e) => `${e.pid}:${e.startTime}`).sort());
      most = Math.max(most, live.size);
    }
    // The churn made a table worth the name.
    expect(most).toBeGreaterThan(10);
  });

  it('from the changes since its last table, looks at no other row than those that ran lately', () => {
    const rows = createSystemRows();
    const first = table(entry(50));
    rows.update(first, 1_000, []);
    const second = table(entry(50));
    rows.update(second, 2_000, [], undefined, changesOf(first, second));
    // Its percent is 0 now: settled. An entry object the changes do not name is not looked at...
    const unnamed = table(entry(90));
    expect(rows.update(unnamed, 3_000, [], undefined, { since: second, changed: new Map(), removed: [] })).toEqual({
      full: false,
      upserts: [],
      removed: [],
    });
    // ...and changes from another table than its last are not trusted: every row is looked at.
    const third = table(entry(150));
    const stale = rows.update(third, 4_000, [], undefined, changesOf(first, third));
    expect(stale.upserts.map((node) => node.cpuPercent)).toEqual([10]);
  });

  it('from changes, gives the percent over the last poll to a process idle for polls, and 0 once it stops', () => {
    const rows = createSystemRows();
    let last = table(entry(50));
    const poll = (next: Map<number, ProcessEntry>, atMs: number) => {
      const diff = rows.update(next, atMs, [], undefined, changesOf(last, next));
      last = next;
      return diff;
    };
    rows.update(last, 1_000, []);
    const kept = last.get(4242) as ProcessEntry;
    expect(poll(table(kept), 2_000).upserts.map((node) => node.cpuPercent)).toEqual([0]);
    expect(poll(table(kept), 3_000).upserts).toEqual([]);
    expect(poll(table(kept), 4_000).upserts).toEqual([]);
    // Ran 500 ms in the last second after three idle ones: 50 %, not 500 ms over four seconds.
    const ran = entry(550);
    expect(poll(table(ran), 5_000).upserts.map((node) => node.cpuPercent)).toEqual([50]);
    // The worker keeps its entry object once it stops: the same object, yet the percent falls to 0.
    expect(poll(table(ran), 6_000).upserts.map((node) => node.cpuPercent)).toEqual([0]);
    expect(poll(table(ran), 7_000).upserts).toEqual([]);
  });

  it('from changes, yields the diffs a pass over every row yields, over churn, escapes and port reads', () => {
    const everyRow = createSystemRows();
    const fromChanges = createSystemRows();
    const next = randomFrom(11);
    let live = new Map<number, ProcessEntry>();
    let lookup = (_key: string): readonly ListeningSocket[] | undefined => undefined;
    let shown: Map<string, ProcessNode> = new Map();
    let fewChanged = 0;
    let removals = 0;
    let fellToZero = 0;
    for (let poll = 1; poll <= 80; poll += 1) {
      const updated = churn(live, poll, next);
      // Now and then a port read finds other listeners (a new lookup); between, the same one.
      if (poll % 9 === 0) {
        const listeners = new Map(
          [...updated.values()]
            .filter(() => next() % 5 === 0)
            .map((e) => [`${e.pid}:${e.startTime}`, [{ proto: 'tcp' as const, address: '0.0.0.0', port: e.pid }]]),
        );
        lookup = (key) => listeners.get(key);
      }
      // A run whose escaped members change every few polls.
      const escapees = [...updated.values()].filter((e) => (e.pid + Math.floor(poll / 5)) % 7 === 0);
      const runs = [runWithEscaped(escapees)];
      const changes = changesOf(live, updated);
      live = updated;
      const expected = everyRow.update(live, poll * 1_000, runs, lookup);
      const got = fromChanges.update(live, poll * 1_000, runs, lookup, poll === 1 ? undefined : changes);
      expect(sorted(got)).toEqual(sorted(expected));
      shown = applySystemDiff(shown, got);
      expect(shown).toEqual(byKey(everyRow));
      if (changes.changed.size < live.size / 2) fewChanged += 1;
      removals += got.removed.length;
      fellToZero += got.upserts.filter((node) => node.cpuPercent === 0).length;
    }
    // What the changes path must get right happened, many times over.
    expect(fewChanged).toBeGreaterThan(30);
    expect(removals).toBeGreaterThan(20);
    expect(fellToZero).toBeGreaterThan(30);
  });
});
