/**
 * settleEndedRuns: the end of a run nobody supervises is recorded once nothing of it is left —
 * once, however many stale looks race (each from a scan taken before any end was written).
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { appendLedgerRecord } from '../../src/ledger/append.js';
import { readLedger } from '../../src/ledger/read.js';
import { findOrphans } from '../../src/orphans/find-orphans.js';
import { settleEndedRuns } from '../../src/orphans/settle-ended.js';
import { createRunDir, ensureStateDir, type StatePaths } from '../../src/state/state-dir.js';
import { makeTempDir } from '../helpers/index.js';

const DEAD_RECORDER = { role: 'cli' as const, pid: 2_000_000_000, startTime: 'long-gone' };

function plantUnendedRun(paths: StatePaths, runId: string): void {
  const runDir = createRunDir(paths, runId);
  appendLedgerRecord(
    paths.ledgerFile,
    { kind: 'run_start', runId, command: 'worker', args: [], cwd: runDir, runDir, pid: null, startTime: null },
    DEAD_RECORDER,
  );
}

function endsOf(paths: StatePaths, runId: string): number {
  return readLedger(paths.ledgerFile).records.filter((r) => r.kind === 'run_end' && r.runId === runId).length;
}

describe('settleEndedRuns', () => {
  const homes: string[] = [];
  afterEach(() => {
    for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
  });

  function stateHome(): StatePaths {
    const home = makeTempDir('tw-settle-');
    homes.push(home);
    return ensureStateDir(home);
  }

  it('records one end however many stale scans race, and says who and why', () => {
    const paths = stateHome();
    const runId = `run-stale-${process.pid}`;
    plantUnendedRun(paths, runId);
    // Every looker scanned before anyone wrote: each one believes the end is missing.
    const scans = [1, 2, 3, 4].map(() => findOrphans({ paths }));
    expect(scans.every((scan) => scan.unended.some((run) => run.runId === runId))).toBe(true);
    const settled = scans.flatMap((scan) => settleEndedRuns(scan, { paths }));
    expect(settled.map((run) => run.runId)).toEqual([runId]);
    expect(endsOf(paths, runId)).toBe(1);
    expect(settled[0]?.reason).toBe('leaked: nobody alive supervises it any more; its last process exited');
  });

  it('leaves a run alone while the caller still sees a process of it', () => {
    const paths = stateHome();
    const runId = `run-seen-${process.pid}`;
    plantUnendedRun(paths, runId);
    const scan = findOrphans({ paths });
    expect(settleEndedRuns(scan, { paths, stillAlive: (id) => id === runId })).toEqual([]);
    expect(endsOf(paths, runId)).toBe(0);
    expect(settleEndedRuns(scan, { paths })).toHaveLength(1);
  });

  it('never adds an end to a run whose end is on record, even from a scan older than it', () => {
    const paths = stateHome();
    const runId = `run-late-${process.pid}`;
    plantUnendedRun(paths, runId);
    const stale = findOrphans({ paths });
    appendLedgerRecord(
      paths.ledgerFile,
      {
        kind: 'run_end',
        runId,
        classification: 'ok',
        exitCode: 0,
        signal: null,
        durationMs: 5,
        killAttempts: 0,
        survivors: [],
      },
      DEAD_RECORDER,
    );
    expect(settleEndedRuns(stale, { paths })).toEqual([]);
    expect(endsOf(paths, runId)).toBe(1);
  });
});
