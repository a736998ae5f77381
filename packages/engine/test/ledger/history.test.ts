import { describe, expect, it } from 'vitest';
import { summarizeRuns } from '../../src/ledger/history.js';
import type { LedgerRecord } from '../../src/ledger/records.js';

const by = { role: 'guardian', pid: 10 } as const;
const records: LedgerRecord[] = [
  {
    v: 1,
    kind: 'run_start',
    at: '2026-01-01T00:00:02.000Z',
    by,
    runId: 'b',
    command: 'sleep',
    args: ['9'],
    cwd: '/r/b',
    pid: 22,
    startTime: '7',
  },
  {
    v: 1,
    kind: 'run_start',
    at: '2026-01-01T00:00:01.000Z',
    by,
    runId: 'a',
    leaseId: 'L',
    command: 'node',
    args: [],
    cwd: '/r/a',
    pid: 21,
    startTime: '6',
  },
  {
    v: 1,
    kind: 'kill',
    at: '2026-01-01T00:00:03.000Z',
    by,
    runId: 'a',
    reason: 'timeout',
    target: { pid: 21, startTime: '6' },
    result: 'killed',
    signals: ['SIGTERM'],
    pids: [21],
    killed: [],
    survivors: [],
    attempts: 2,
  },
  {
    v: 1,
    kind: 'run_end',
    at: '2026-01-01T00:00:04.000Z',
    by,
    runId: 'a',
    leaseId: 'L',
    classification: 'timeout',
    exitCode: null,
    signal: 'SIGTERM',
    durationMs: 3000,
    killAttempts: 1,
    survivors: [{ pid: 30, startTime: '1' }],
  },
];

describe('run history', () => {
  it('pairs starts with ends, oldest first, and counts kill attempts', () => {
    const [a, b] = summarizeRuns(records);
    expect(a).toMatchObject({
      runId: 'a',
      leaseId: 'L',
      classification: 'timeout',
      signal: 'SIGTERM',
      killAttempts: 2,
      survivors: 1,
      durationMs: 3000,
    });
    // No end recorded: still running, or its writer crashed.
    expect(b).toMatchObject({ runId: 'b', classification: null, endedAt: null, args: ['9'] });
  });
});
