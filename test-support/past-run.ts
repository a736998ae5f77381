/**
 * A run recorded in a ledger as an earlier session would have left it: started, and (unless
 * `ended: false`) ended `ok`. Orphan tests leak a tree under such a run on purpose.
 */
import { appendLedgerRecord, createRunDir, readProcEntry, type StatePaths } from '@treewarden/engine';

export interface PastRunOptions {
  readonly ended?: boolean;
  readonly command?: string;
}

/** Returns the run's private directory (created under the state dir). */
export function recordPastRun(paths: StatePaths, runId: string, options: PastRunOptions = {}): string {
  const runDir = createRunDir(paths, runId);
  // The recorder's identity: while this process lives, a run it started and did not end is still supervised.
  const by = { role: 'test' as const, pid: process.pid, startTime: readProcEntry(process.pid)?.startTime ?? '' };
  const command = options.command ?? 'fixture';
  appendLedgerRecord(
    paths.ledgerFile,
    { kind: 'run_start', runId, command, args: [], cwd: runDir, runDir, pid: null, startTime: null },
    by,
  );
  if (options.ended === false) return runDir;
  appendLedgerRecord(
    paths.ledgerFile,
    {
      kind: 'run_end',
      runId,
      classification: 'ok',
      exitCode: 0,
      signal: null,
      durationMs: 1,
      killAttempts: 0,
      survivors: [],
    },
    by,
  );
  return runDir;
}
