/** Folds ledger records into one line per run: what ran, under which lease, and how it ended. */
import type { Classification } from '../run/types.js';
import type { LedgerRecord, RunEndRecord, RunStartRecord } from './records.js';

export interface RunHistoryEntry {
  readonly runId: string;
  readonly leaseId: string | null;
  readonly command: string | null;
  readonly args: readonly string[];
  readonly cwd: string | null;
  readonly pid: number | null;
  readonly startedAt: string | null;
  readonly endedAt: string | null;
  /** null while the ledger holds no end for the run (still running, or its writer crashed). */
  readonly classification: Classification | null;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly durationMs: number | null;
  readonly killAttempts: number;
  /** Identities that outlived every kill attempt, as recorded. */
  readonly survivors: number;
  readonly error: string | null;
  /** Null for records written before timeouts were kept: unknown, never guessed. */
  readonly timeoutSeconds: number | null;
  readonly deadlineAt: string | null;
  /** Why the run counts as ended when its supervisor died before recording the end. */
  readonly endedWithoutSupervisor: string | null;
}

interface Pair {
  start?: RunStartRecord;
  end?: RunEndRecord;
  killAttempts: number;
}

export function summarizeRuns(records: readonly LedgerRecord[]): RunHistoryEntry[] {
  const byRun = new Map<string, Pair>();
  const pairOf = (runId: string): Pair => {
    let pair = byRun.get(runId);
    if (pair === undefined) {
      pair = { killAttempts: 0 };
      byRun.set(runId, pair);
    }
    return pair;
  };
  for (const record of records) {
    if (record.kind === 'run_start') pairOf(record.runId).start = record;
    // The first end on record wins: a late duplicate (two recorders racing) changes nothing.
    else if (record.kind === 'run_end') pairOf(record.runId).end ??= record;
    else if (record.kind === 'kill' && record.runId !== undefined) pairOf(record.runId).killAttempts += record.attempts;
  }
  return [...byRun.entries()].map(([runId, pair]) => toEntry(runId, pair)).sort(byStart);
}

function toEntry(runId: string, { start, end, killAttempts }: Pair): RunHistoryEntry {
  return {
    runId,
    leaseId: start?.leaseId ?? end?.leaseId ?? null,
    command: start?.command ?? null,
    args: start?.args ?? [],
    cwd: start?.cwd ?? null,
    pid: start?.pid ?? null,
    startedAt: start?.at ?? null,
    endedAt: end?.at ?? null,
    classification: end?.classification ?? null,
    exitCode: end?.exitCode ?? null,
    signal: end?.signal ?? null,
    durationMs: end?.durationMs ?? null,
    killAttempts: Math.max(killAttempts, end?.killAttempts ?? 0),
    survivors: end?.survivors.length ?? 0,
    error: end?.error ?? null,
    timeoutSeconds: start?.timeoutSeconds ?? null,
    deadlineAt: start?.deadlineAt ?? null,
    endedWithoutSupervisor: end?.endedWithoutSupervisor ?? null,
  };
}

function byStart(a: RunHistoryEntry, b: RunHistoryEntry): number {
  return (a.startedAt ?? a.endedAt ?? '').localeCompare(b.startedAt ?? b.endedAt ?? '');
}
