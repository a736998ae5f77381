/** Folds ledger records into one line per run: what ran, under which lease, and how it ended. */
import { KILL_REASON_OF_KILLER } from '@treewarden/protocol/vocabulary';
import type { Classification, Killer } from '../run/types.js';
import type { KillRecord, LedgerRecord, RunEndRecord, RunStartRecord } from './records.js';

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
  /** Who ended the run when it did not end on its own; null when it did, or older records cannot tell. */
  readonly killedBy: Killer | null;
}

interface Pair {
  start?: RunStartRecord;
  end?: RunEndRecord;
  killAttempts: number;
  /**
   * The first person's kill (app, CLI, MCP) recorded against the run or its root that signalled
   * something (its record is written once the kill is verified, often after the run's end).
   */
  personKill?: Killer;
}

const KILLER_OF_REASON: ReadonlyMap<string, Killer> = new Map(
  Object.entries(KILL_REASON_OF_KILLER).map(([killer, reason]) => [reason, killer as Killer]),
);

/** A kill that found its target alive and signalled it (not refused, not already gone). */
function signalled(record: KillRecord): boolean {
  return record.result === 'killed' || record.result === 'kill_failed';
}

/**
 * The run whose root the kill targeted (`treewarden kill` names no run; the app's names it too).
 * A kill of a subtree inside a run ends no run, so it says nothing about how the run ended.
 */
function runOfKill(record: KillRecord, roots: ReadonlyMap<string, string>): string | undefined {
  const runId = roots.get(`${record.target.pid}:${record.target.startTime}`);
  return record.runId === undefined || record.runId === runId ? runId : undefined;
}

/**
 * How a run ended as every screen tells it. A supervisor that saw its root die by a signal someone
 * else sent records `error`; when a person killed that run (the app, `treewarden kill`, an MCP
 * client; `personKill`, at or before the end), it was killed on purpose: `cancelled`, by that
 * person. Ends recorded before `killedBy` existed say it for their timeout and limits from the
 * classification.
 */
export function toldEnd(
  end: Pick<RunEndRecord, 'classification' | 'signal' | 'killedBy' | 'limit'>,
  personKill: Killer | undefined,
): { readonly classification: Classification; readonly killedBy: Killer | null } {
  if (end.killedBy !== undefined) return { classification: end.classification, killedBy: end.killedBy };
  if (end.classification === 'timeout') return { classification: 'timeout', killedBy: 'timeout' };
  if (end.limit !== undefined && end.classification !== 'kill_failed')
    return { classification: end.classification, killedBy: 'limit' };
  const killedBySignal = end.classification === 'error' && end.signal !== null;
  if (personKill !== undefined && (killedBySignal || end.classification === 'cancelled'))
    return { classification: 'cancelled', killedBy: personKill };
  return { classification: end.classification, killedBy: null };
}

function endOf(
  end: RunEndRecord | undefined,
  personKill: Killer | undefined,
): Pick<RunHistoryEntry, 'classification' | 'killedBy'> {
  if (end === undefined) return { classification: null, killedBy: null };
  return toldEnd(end, personKill);
}

/** The person (app, CLI, MCP) a kill record's reason names; undefined for the engine's own kills. */
export function killerOfReason(reason: string): Killer | undefined {
  return KILLER_OF_REASON.get(reason);
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
  const roots = new Map<string, string>();
  for (const record of records) {
    if (record.kind === 'run_start' && record.pid !== null && record.startTime !== null)
      roots.set(`${record.pid}:${record.startTime}`, record.runId);
  }
  for (const record of records) {
    if (record.kind === 'kill') {
      const by = signalled(record) ? killerOfReason(record.reason) : undefined;
      const runId = by === undefined ? undefined : runOfKill(record, roots);
      if (by !== undefined && runId !== undefined) pairOf(runId).personKill ??= by;
    }
    if (record.kind === 'run_start') pairOf(record.runId).start = record;
    // The first end on record wins: a late duplicate (two recorders racing) changes nothing.
    else if (record.kind === 'run_end') pairOf(record.runId).end ??= record;
    else if (record.kind === 'kill' && record.runId !== undefined) pairOf(record.runId).killAttempts += record.attempts;
  }
  return [...byRun.entries()].map(([runId, pair]) => toEntry(runId, pair)).sort(byStart);
}

function toEntry(runId: string, { start, end, killAttempts, personKill }: Pair): RunHistoryEntry {
  return {
    runId,
    leaseId: start?.leaseId ?? end?.leaseId ?? null,
    command: start?.command ?? null,
    args: start?.args ?? [],
    cwd: start?.cwd ?? null,
    pid: start?.pid ?? null,
    startedAt: start?.at ?? null,
    endedAt: end?.at ?? null,
    ...endOf(end, personKill),
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
