/**
 * A ledger line is believed only when it matches its kind's schema: a known kind with a bad shape
 * is reported as invalid (never half-trusted), a kind from a newer writer is skipped quietly, and
 * fields a newer writer added to a known kind are kept.
 */
import { describe, expect, it } from 'vitest';
import { parseLedger } from '../../src/ledger/read.js';

const BY = { role: 'test', pid: 10, startTime: '5' };
const START = {
  v: 1,
  kind: 'run_start',
  at: '2026-11-30T00:00:00.000Z',
  by: BY,
  runId: 'run-a',
  command: 'node',
  args: [],
  cwd: '/',
  pid: 42,
  startTime: '7',
};

function ledgerOf(...records: readonly unknown[]): string {
  return records.map((record) => `${JSON.stringify(record)}\n`).join('');
}

describe('ledger schema', () => {
  it('keeps a valid record with the fields a newer writer added', () => {
    const read = parseLedger(ledgerOf({ ...START, timeoutSeconds: 120 }));
    expect(read.records).toEqual([{ ...START, timeoutSeconds: 120 }]);
    expect(read.invalid).toEqual([]);
  });

  it.each([
    ['a pid that is not a number', { ...START, pid: 'abc' }, /run_start: pid /],
    ['a negative pid', { ...START, pid: -1 }, /run_start: pid /],
    ['a run dir that is not a string', { ...START, runDir: 7 }, /run_start: runDir /],
    ['no author', { ...START, by: undefined }, /run_start: by /],
    ['an unknown classification', { ...START, kind: 'run_end', classification: 'fine' }, /run_end: /],
    ['a kill without a target', { ...START, kind: 'kill' }, /kill: /],
    ['an unknown limit method', { ...START, limitMethods: { 'max-procs': 'guess' } }, /run_start: limitMethods/],
    ['a method for an unknown limit', { ...START, limitMethods: { 'max-fun': 'cpu.stat' } }, /run_start: limitMethods/],
    ['a relative cgroup path', { ...START, cgroup: 'treewarden/run-a' }, /run_start: cgroup /],
  ])('reports %s as invalid and never believes it', (_name, record, problem) => {
    const read = parseLedger(ledgerOf(START, record));
    expect(read.records).toEqual([START]);
    expect(read.invalid).toHaveLength(1);
    expect(read.invalid[0]?.line).toBe(2);
    expect(read.invalid[0]?.problem).toMatch(problem);
    expect(read.torn).toEqual([]);
  });

  it('reads how limits were enforced: old records (polling only) and new ones (cgroup, per-limit methods)', () => {
    const old = { ...START, limits: { maxProcs: 5 }, limitEnforcement: 'polling' };
    const cgroup = {
      ...START,
      runId: 'run-b',
      limits: { maxProcs: 5, maxCpuSeconds: 2 },
      limitEnforcement: 'cgroup',
      limitMethods: { 'max-procs': 'cgroup.procs', 'max-cpu': 'cpu.stat' },
      cgroup: '/sys/fs/cgroup/unified/treewarden/run-b',
    };
    const read = parseLedger(ledgerOf(old, cgroup));
    expect(read.records).toEqual([old, cgroup]);
    expect(read.invalid).toEqual([]);
  });

  it('skips a kind this version does not know, without calling it invalid', () => {
    const read = parseLedger(ledgerOf({ v: 1, kind: 'from_the_future', at: 'x', by: BY }, START));
    expect(read.records).toEqual([START]);
    expect(read.invalid).toEqual([]);
    expect(read.torn).toEqual([]);
  });
});
