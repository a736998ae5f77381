import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarizeRuns } from '../../src/ledger/history.js';
import { parseLedger, readLedger } from '../../src/ledger/read.js';
import { recordRunStart } from '../../src/ledger/record-run.js';
import type { LedgerRecord } from '../../src/ledger/records.js';
import { DEFAULT_TIMEOUT_SECONDS } from '../../src/run/types.js';
import { makeTempDir, removeTempDir } from '../helpers/index.js';

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

describe('run timeouts and ends on record', () => {
  it('records the effective timeout and deadline at the start; old records say unknown, never a guess', () => {
    const dir = makeTempDir('tw-run-start-');
    try {
      const ledgerFile = join(dir, 'ledger.jsonl');
      const startedAtMs = Date.parse('2026-01-01T00:00:00.000Z');
      const run = { id: 'r120', leaseId: 'L', identity: null };
      recordRunStart(ledgerFile, run, { command: 'node', timeoutSeconds: 120 }, by, undefined, startedAtMs);
      recordRunStart(ledgerFile, { ...run, id: 'rdefault' }, { command: 'node' }, by, undefined, startedAtMs);
      const [explicit, defaulted] = summarizeRuns(readLedger(ledgerFile).records);
      expect(explicit).toMatchObject({ timeoutSeconds: 120, deadlineAt: '2026-01-01T00:02:00.000Z' });
      expect(defaulted).toMatchObject({ timeoutSeconds: DEFAULT_TIMEOUT_SECONDS });
      expect(summarizeRuns(records)[0]).toMatchObject({ timeoutSeconds: null, deadlineAt: null });
    } finally {
      removeTempDir(dir);
    }
  });

  it('keeps the first end on record when a late duplicate follows', () => {
    const end = records[3] as LedgerRecord;
    const duplicate = { ...end, classification: 'cancelled', endedWithoutSupervisor: 'late' } as LedgerRecord;
    const [a] = summarizeRuns([...records, duplicate]);
    expect(a).toMatchObject({ classification: 'timeout', endedWithoutSupervisor: null });
  });
});

describe('who ended a run', () => {
  const start = records[1] as LedgerRecord & { kind: 'run_start' };
  const errorBySignal = {
    v: 1,
    kind: 'run_end',
    at: '2026-01-01T00:00:04.000Z',
    by,
    runId: 'a',
    classification: 'error',
    exitCode: null,
    signal: 'SIGTERM',
    durationMs: 3000,
    killAttempts: 0,
    survivors: [],
  } as const;
  const personKill = (reason: string, result: 'killed' | 'already_gone', target = { pid: 21, startTime: '6' }) => ({
    v: 1 as const,
    kind: 'kill' as const,
    // Written once the kill was verified: often after the run's end.
    at: '2026-01-01T00:00:05.000Z',
    by: { role: 'cli', pid: 11 } as const,
    reason,
    target,
    result,
    signals: ['SIGTERM' as const],
    pids: [21],
    killed: [],
    survivors: [],
    attempts: 1,
  });

  it("tells a person's kill of the root as cancelled by them, and nothing else", () => {
    expect(summarizeRuns([start, errorBySignal, personKill('cli_kill', 'killed')])[0]).toMatchObject({
      classification: 'cancelled',
      killedBy: 'cli',
    });
    expect(summarizeRuns([start, errorBySignal, personKill('ui_kill', 'killed')])[0]).toMatchObject({
      killedBy: 'ui',
    });
    // Nothing signalled, the engine's own kill, or a kill of some other process: the error stands.
    for (const kill of [
      personKill('cli_kill', 'already_gone'),
      personKill('orphan_clean', 'killed'),
      personKill('cli_kill', 'killed', { pid: 21, startTime: '999' }),
    ])
      expect(summarizeRuns([start, errorBySignal, kill])[0]).toMatchObject({ classification: 'error', killedBy: null });
  });

  it('reads older ends without killedBy and validates the new field', () => {
    // An old timeout end (no killedBy) still says the timeout ended it.
    expect(summarizeRuns(records)[0]).toMatchObject({ classification: 'timeout', killedBy: 'timeout' });
    const written = { ...errorBySignal, classification: 'cancelled', killedBy: 'mcp' };
    const bad = { ...errorBySignal, runId: 'z', killedBy: 'someone' };
    const read = parseLedger([start, written, bad].map((record) => JSON.stringify(record)).join('\n'));
    expect(read.invalid).toHaveLength(1);
    expect(summarizeRuns(read.records)[0]).toMatchObject({ classification: 'cancelled', killedBy: 'mcp' });
  });
});
