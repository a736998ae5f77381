/** The pure parts behind "the UI tells the truth": one leak list, and the ledger read as it grows. */
import { appendFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProcessEntry } from '@treewarden/engine';
import { serializeRecord } from '@treewarden/engine/ledger/index';
import type { OrphanView } from '@treewarden/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../engine/test/helpers/index.js';
import { createLedgerRuns } from '../src/engine/ledger-runs.js';
import { type RunRecord, runningState } from '../src/run-record.js';
import { buildSnapshot, type LeaseEntry } from '../src/snapshot/build-snapshot.js';
import { createMembership } from '../src/snapshot/membership.js';
import { toProcessNode } from '../src/snapshot/process-node.js';

function entry(pid: number, ppid: number, extra: Partial<ProcessEntry> = {}): ProcessEntry {
  return {
    pid,
    startTime: String(1000 + pid),
    ppid,
    pgid: pid,
    sid: pid,
    state: 'S',
    uid: 0,
    command: 'node',
    args: ['node', `w${pid}`],
    cwd: '/tmp',
    cpuTimeMs: 0,
    rssBytes: 4096,
    startedAtMs: 1,
    ...extra,
  };
}

function record(id: string, leaseId: string, members: ProcessEntry[], state: Partial<RunRecord> = {}): RunRecord {
  const root = members[0] ?? null;
  const membership = createMembership(() => root);
  membership.update(new Map(members.map((member) => [member.pid, member])));
  return {
    id,
    leaseId,
    spec: { command: 'node', args: [] },
    retrySpec: null,
    cwd: '/tmp',
    cookie: id,
    timeoutSeconds: null,
    deadlineAtMs: null,
    startedAtMs: 0,
    root,
    membership,
    handle: null,
    ...runningState(),
    ...state,
  };
}

function lease(id: string, runs: RunRecord[]): LeaseEntry {
  return {
    id,
    name: id,
    holder: null,
    holderCommand: '',
    holderState: 'dead',
    heldByThisApp: false,
    createdAtMs: 0,
    runs,
  };
}

describe('one leak list', () => {
  it('counts every leaked process once, and every count agrees with the list', () => {
    const supervised = record('run-live', 'lease-a', [entry(10, 1), entry(11, 10)]);
    const unsupervised = record('run-lost', 'lease-b', [entry(20, 1), entry(21, 20)], { unsupervised: true });
    const ended = record('run-ended', 'lease-b', [entry(30, 1), entry(31, 30, { state: 'Z' })], {
      phase: 'ended',
      classification: 'ok',
    });
    // The engine scan found one of the same processes (by cookie) and one of an old run not shown.
    const scanned: OrphanView[] = [
      {
        runId: 'run-lost',
        leaseId: 'lease-b',
        kind: 'over',
        reasons: ['cookie'],
        process: toProcessNode(entry(21, 20), 0, false),
      },
      {
        runId: 'run-old',
        leaseId: 'lease-gone',
        kind: 'over',
        reasons: ['cookie'],
        process: toProcessNode(entry(40, 1), 0, false),
      },
    ];
    const snapshot = buildSnapshot({
      leases: [lease('lease-a', [supervised]), lease('lease-b', [unsupervised, ended])],
      orphans: scanned,
      cpuPercents: new Map(),
      pollIntervalMs: 1000,
      now: 0,
    });
    expect(snapshot.orphans.map((orphan) => orphan.process.pid).sort()).toEqual([20, 21, 30, 40]);
    expect(snapshot.counts.leaked).toBe(snapshot.orphans.length);
    const [a, b] = snapshot.leases;
    expect(a?.leakedCount).toBe(0);
    expect(b?.leakedCount).toBe(3);
    expect(b?.runs.map((run) => [run.id, run.leakedCount, run.unsupervised])).toEqual([
      ['run-lost', 2, true],
      ['run-ended', 1, false],
    ]);
    // Only supervised, going runs count as live; the zombie counts for nothing.
    expect(snapshot.counts.live).toBe(2);
  });
});

describe('ledger runs', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const actor = { role: 'test' as const, pid: 1 };
  const start = (runId: string) =>
    serializeRecord(
      {
        kind: 'run_start',
        runId,
        command: 'node',
        args: ['a b'],
        cwd: '/w',
        pid: null,
        startTime: null,
        timeoutSeconds: 9,
      },
      actor,
    );
  const end = (runId: string, classification: 'ok' | 'error') =>
    serializeRecord(
      {
        kind: 'run_end',
        runId,
        classification,
        exitCode: 0,
        signal: null,
        durationMs: 1,
        killAttempts: 0,
        survivors: [],
      },
      actor,
    );

  it('reads only what was appended, waits for a record still being written, keeps the first end', () => {
    const dir = makeTempDir('tw-ledger-runs-');
    dirs.push(dir);
    const file = join(dir, 'ledger.jsonl');
    const runs = createLedgerRuns(file);
    runs.refresh();
    expect(runs.get('r1')).toBeUndefined();
    writeFileSync(file, start('r1'));
    const half = end('r1', 'ok');
    appendFileSync(file, half.slice(0, 20));
    runs.refresh();
    expect(runs.get('r1')?.start?.args).toEqual(['a b']);
    expect(runs.get('r1')?.end).toBeUndefined();
    appendFileSync(file, half.slice(20) + end('r1', 'error'));
    runs.refresh();
    expect(runs.get('r1')?.end?.classification).toBe('ok');
    expect(runs.get('r1')?.start?.timeoutSeconds).toBe(9);
  });

  it('starts over when the ledger was replaced or truncated', () => {
    const dir = makeTempDir('tw-ledger-runs-');
    dirs.push(dir);
    const file = join(dir, 'ledger.jsonl');
    writeFileSync(file, start('r1') + start('r2'));
    const runs = createLedgerRuns(file);
    runs.refresh();
    expect(runs.get('r2')).toBeDefined();
    writeFileSync(file, start('r3'));
    runs.refresh();
    expect(runs.get('r2')).toBeUndefined();
    expect(runs.get('r3')).toBeDefined();
    // A different file, longer than what was read: never continued from the old offset.
    const other = join(dir, 'other.jsonl');
    writeFileSync(other, start('r4') + start('r5') + start('r6'));
    renameSync(other, file);
    runs.refresh();
    expect(['r3', 'r4', 'r5', 'r6'].map((id) => runs.get(id) !== undefined)).toEqual([false, true, true, true]);
  });
});
