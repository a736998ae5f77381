/**
 * Ledger records for one run: its start (what, where, which root identity) and its end (the
 * classification, and the tree kill if there was one). The guardian uses these for leased runs;
 * `recordRun` lets any other host of `startRun` (the CLI without a lease, the desktop app) keep
 * the same history with one call.
 */
import { hasLimits } from '../run/limits.js';
import type { Run, RunOutcome, RunSpec } from '../run/types.js';
import { normalizeTimeout } from '../run/validate.js';
import { resolveStateDir, statePaths } from '../state/state-dir.js';
import { appendLedgerRecord, defaultActor } from './append.js';
import { killRecordOf } from './kill-record.js';
import type { LedgerActor } from './records.js';

export function recordRunStart(
  ledgerFile: string,
  run: Pick<Run, 'id' | 'leaseId' | 'identity'> & Partial<Pick<Run, 'cgroup' | 'limitMethods'>>,
  spec: RunSpec,
  actor: LedgerActor,
  runDir?: string,
  startedAtMs: number = Date.now(),
): void {
  const timeoutSeconds = normalizeTimeout(spec.timeoutSeconds);
  appendLedgerRecord(
    ledgerFile,
    {
      kind: 'run_start',
      runId: run.id,
      ...(run.leaseId !== '' ? { leaseId: run.leaseId } : {}),
      command: spec.command,
      args: spec.args ?? [],
      ...(spec.argvBase64 !== undefined ? { argvBase64: spec.argvBase64 } : {}),
      cwd: spec.cwd ?? process.cwd(),
      ...(runDir !== undefined ? { runDir } : {}),
      pid: run.identity?.pid ?? null,
      startTime: run.identity?.startTime ?? null,
      timeoutSeconds,
      deadlineAt: new Date(startedAtMs + timeoutSeconds * 1000).toISOString(),
      ...(spec.limits !== undefined && hasLimits(spec.limits)
        ? {
            limits: spec.limits,
            limitEnforcement: run.cgroup != null ? ('cgroup' as const) : ('polling' as const),
            ...(run.limitMethods === undefined ? {} : { limitMethods: run.limitMethods }),
          }
        : {}),
      ...(run.cgroup != null ? { cgroup: run.cgroup.path } : {}),
      ...(spec.keepAfterLease === true ? { keepAfterLease: true } : {}),
    },
    actor,
  );
}

export function recordRunEnd(ledgerFile: string, outcome: RunOutcome, leaseId: string, actor: LedgerActor): void {
  appendLedgerRecord(
    ledgerFile,
    {
      kind: 'run_end',
      runId: outcome.runId,
      ...(leaseId !== '' ? { leaseId } : {}),
      classification: outcome.classification,
      exitCode: outcome.exitCode,
      signal: outcome.signal,
      durationMs: outcome.durationMs,
      killAttempts: outcome.killAttempts,
      survivors: outcome.survivors,
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      ...((outcome.kept?.length ?? 0) > 0 ? { kept: outcome.kept } : {}),
      ...(outcome.limit === undefined ? {} : { limit: outcome.limit }),
      ...(outcome.limitEnforcement === undefined ? {} : { limitEnforcement: outcome.limitEnforcement }),
      ...(outcome.limitMethods === undefined ? {} : { limitMethods: outcome.limitMethods }),
      ...(outcome.cgroup === undefined ? {} : { cgroup: outcome.cgroup }),
      ...(outcome.killedBy === undefined ? {} : { killedBy: outcome.killedBy }),
    },
    actor,
  );
  if (outcome.kill !== undefined) {
    const leaseOrNull = leaseId !== '' ? leaseId : null;
    appendLedgerRecord(
      ledgerFile,
      killRecordOf(outcome.kill, outcome.runId, leaseOrNull, outcome.classification),
      actor,
    );
  }
}

export interface RecordRunOptions {
  /** Default: the ledger of `resolveStateDir()`. */
  readonly ledgerFile?: string;
  readonly actor?: LedgerActor;
}

/** Records the run's start now and its end when it ends; resolves once the end is on disk. */
export async function recordRun(run: Run, spec: RunSpec, options: RecordRunOptions = {}): Promise<void> {
  const ledgerFile = options.ledgerFile ?? statePaths(resolveStateDir()).ledgerFile;
  const actor = options.actor ?? defaultActor();
  recordRunStart(ledgerFile, run, spec, actor);
  recordRunEnd(ledgerFile, await run.outcome, run.leaseId, actor);
}
