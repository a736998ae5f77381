/**
 * Rows are rebuilt only for entries that changed: the poll worker keeps an unchanged process's
 * entry object, and the row built from it is kept while its CPU %, escape and sockets stay the
 * same, so the diff skips it. Anything else that changes gets a new row, and the diff sends it.
 */
import type { ProcessEntry } from '@treewarden/engine';
import type { ListeningSocket } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { createCpuTracker } from '../src/snapshot/process-node.js';
import { diffSystem } from '../src/snapshot/system-diff.js';
import { buildSystemTable } from '../src/snapshot/system-table.js';

function entry(cpuTimeMs: number): ProcessEntry {
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
  };
}

const key = '4242:777';
const table = (e: ProcessEntry) => new Map([[e.pid, e]]);

describe('system rows from unchanged entries', () => {
  it('keeps the row of the same entry at 0 % and skips it in the diff; a change makes a new row', () => {
    const cpu = createCpuTracker();
    const sleeping = entry(50);
    const first = buildSystemTable(table(sleeping), 1_000, cpu, []);
    const second = buildSystemTable(table(sleeping), 2_000, cpu, []);
    // First sight has no CPU % yet; the second read knows 0 %: a new row, and a diff entry.
    expect(first.get(key)?.cpuPercent).toBeUndefined();
    expect(second.get(key)?.cpuPercent).toBe(0);
    expect(diffSystem(first, second).upserts).toHaveLength(1);
    const third = buildSystemTable(table(sleeping), 3_000, cpu, []);
    expect(third.get(key)).toBe(second.get(key));
    expect(diffSystem(second, third).upserts).toEqual([]);

    // Ran: another entry object with more CPU time, so a new row with its percent.
    const ran = entry(550);
    const fourth = buildSystemTable(table(ran), 4_000, cpu, []);
    expect(fourth.get(key)?.cpuPercent).toBe(50);
    expect(diffSystem(third, fourth).upserts.map((node) => node.cpuPercent)).toEqual([50]);
  });

  it('makes a new row for the same entry when its sockets change', () => {
    const cpu = createCpuTracker();
    const sleeping = entry(50);
    buildSystemTable(table(sleeping), 1_000, cpu, []);
    const quiet = buildSystemTable(table(sleeping), 2_000, cpu, []);
    const sockets: readonly ListeningSocket[] = [{ proto: 'tcp', address: '127.0.0.1', port: 3000 }];
    const listening = buildSystemTable(table(sleeping), 3_000, cpu, [], () => sockets);
    expect(listening.get(key)).not.toBe(quiet.get(key));
    expect(listening.get(key)?.listening).toEqual(sockets);
    expect(diffSystem(quiet, listening).upserts).toHaveLength(1);
  });
});
