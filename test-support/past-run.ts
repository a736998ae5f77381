/**
 * A run recorded in a ledger as an earlier session would have left it: started, and (unless
 * `ended: false`) ended `ok`. Orphan tests leak a tree under such a run on purpose.
 */
import {
  appendLedgerRecord,
  createRunDir,
  type ProcessIdentity,
  readProcEntry,
  type StatePaths,
} from '@treewarden/engine';

export interface PastRunOptions {
  readonly ended?: boolean;
  readonly command?: string;
  /** The run's own cgroup v2 as `--cgroup` records it (in run_start and run_end). */
  readonly cgroup?: string;
  /** Descendants the run kept on purpose (`keepDescendants`), recorded in run_end. */
  readonly kept?: readonly ProcessIdentity[];
}

/** Returns the run's private directory (created under the state dir). */
export function recordPastRun(paths: StatePaths, runId: string, options: PastRunOptions = {}): string {
  const runDir = createRunDir(paths, runId);
  // The recorder's identity: while this process lives, a run it started and did not end is still supervised.
  const by = { role: 'test' as const, pid: process.pid, startTime: readProcEntry(process.pid)?.startTime ?? '' };
  const command = options.command ?? 'fixture';
  appendLedgerRecord(
    paths.ledgerFile,
    {
      kind: 'run_start',
      runId,
      command,
      args: [],
      cwd: runDir,
      runDir,
      pid: null,
      startTime: null,
      ...(options.cgroup !== undefined ? { cgroup: options.cgroup } : {}),
    },
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
      ...(options.cgroup !== undefined ? { cgroup: options.cgroup } : {}),
      ...(options.kept !== undefined && options.kept.length > 0 ? { kept: [...options.kept] } : {}),
    },
    by,
  );
  return runDir;
}
