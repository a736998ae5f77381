/** Activity restored from the ledger: endings and kills in the panel's words, newest first. */
import type { LedgerRecord } from '@treewarden/engine';
import { activityEntrySchema } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { activityOf, recentActivity } from '../src/engine/ledger-activity.js';

const by = { role: 'test' as const, pid: 1 };

const records: LedgerRecord[] = [
  {
    v: 1,
    kind: 'run_start',
    at: '2026-11-30T10:00:00.000Z',
    by,
    runId: 'run-a',
    command: 'sleep',
    args: ['200'],
    cwd: '/tmp',
    pid: 5,
    startTime: '50',
  },
  {
    v: 1,
    kind: 'run_end',
    at: '2026-11-30T10:00:01.000Z',
    by,
    runId: 'run-a',
    classification: 'missing_binary',
    exitCode: 127,
    signal: null,
    durationMs: 3,
    killAttempts: 0,
    survivors: [],
    error: 'sleep 200 was not found (ENOENT); check the path or PATH',
  },
  {
    v: 1,
    kind: 'kill',
    at: '2026-11-30T10:00:02.000Z',
    by,
    runId: 'run-b',
    reason: 'orphan_clean',
    target: { pid: 7, startTime: '70' },
    result: 'killed',
    signals: ['SIGTERM'],
    pids: [7],
    killed: [{ pid: 7, startTime: '70' }],
    survivors: [],
    attempts: 1,
  },
  {
    v: 1,
    kind: 'lease_start',
    at: '2026-11-30T09:59:00.000Z',
    by,
    leaseId: 'lease-x',
    name: 'nightly-build',
    holder: { pid: 3, startTime: '30' },
    guardian: { pid: 4, startTime: '40' },
    subreaper: true,
  },
  {
    v: 1,
    kind: 'lease_end',
    at: '2026-11-30T10:00:03.000Z',
    by,
    leaseId: 'lease-x',
    reason: 'holder_died',
    runsEnded: ['run-b'],
    survivors: [],
  },
];

describe('ledger activity', () => {
  it('restores endings, kills and lease endings newest first, with the recorded error verbatim', () => {
    const lines = recentActivity(records, 10);
    expect(lines.map((line) => line.kind)).toEqual(['lease_end', 'kill', 'run_end']);
    const ending = lines[2];
    expect(ending?.ok).toBe(false);
    expect(ending?.classification).toBe('missing_binary');
    expect(ending?.message).toBe('sleep 200 was not found (ENOENT); check the path or PATH');
    expect(ending?.title).toContain('run-a ended: missing_binary (exit 127)');
    expect(lines[1]?.title).toBe('Kill of pid 7 (orphan_clean): killed, 1 process ended');
    // Named as the user named it (its start is in the ledger), like the live panel does.
    expect(lines[0]?.title).toBe('Lease nightly-build ended: its holder died, 1 run ended');
    for (const line of lines) expect(activityEntrySchema.safeParse(line).success).toBe(true);
  });

  it('keeps to the limit and shows no start records', () => {
    expect(recentActivity(records, 1).map((line) => line.kind)).toEqual(['lease_end']);
    expect(activityOf(records[0] as LedgerRecord)).toBeNull();
  });

  it('keeps the id only for a lease whose start is not in the ledger', () => {
    const end = records.find((record) => record.kind === 'lease_end') as LedgerRecord;
    expect(activityOf(end)?.title).toBe('Lease lease-x ended: its holder died, 1 run ended');
  });
});
