/**
 * Records the end of runs whose supervisor died before it could: once the holder and guardian
 * of a run are gone (or whoever recorded its start), nobody else will ever write its `run_end`,
 * and the run would show "running" forever. When the last process of such a run is gone —
 * cleaned up or exited — the end is recorded with what is known: `cancelled`, why nothing
 * supervised it, and who ended its processes. Exactly once per run, however many recorders look
 * at the same moment (the app and a CLI): an exclusive-create marker in the run's private
 * directory decides who writes, and the ledger is re-read under it.
 */
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { appendLedgerRecord, defaultActor } from '../ledger/append.js';
import { readLedger } from '../ledger/read.js';
import type { KillRecord, LedgerActor, LedgerRecord, RunStartRecord } from '../ledger/records.js';
import { createRunDir, type StatePaths } from '../state/state-dir.js';
import type { OrphanScan, UnendedRun } from './find-orphans.js';

/** Created with O_EXCL in the run dir by the one recorder that writes the run's end. */
export const END_MARKER_FILE = '.end-recorded';
const MARKER_MODE = 0o600;

export interface SettleOptions {
  readonly paths: StatePaths;
  readonly actor?: LedgerActor;
  /** Runs the caller still sees alive by its own evidence (e.g. the app's observed trees). */
  readonly stillAlive?: (runId: string) => boolean;
  readonly now?: number;
}

export interface SettledRun {
  readonly runId: string;
  readonly reason: string;
}

/** Runs of `scan.unended` with no live member in the scan. */
function goneRuns(scan: OrphanScan, stillAlive: (runId: string) => boolean): UnendedRun[] {
  const live = new Set<string>();
  const liveLeases = new Set<string>();
  for (const group of scan.groups) {
    if (group.members.length === 0) continue;
    if (group.runId !== null) live.add(group.runId);
    else if (group.leaseId !== null) liveLeases.add(group.leaseId);
  }
  return scan.unended.filter(
    (run) => !live.has(run.runId) && !(run.leaseId !== null && liveLeases.has(run.leaseId)) && !stillAlive(run.runId),
  );
}

/** True for exactly one caller per run: the one whose exclusive create of the marker succeeded. */
function claimEnd(paths: StatePaths, runId: string): boolean {
  try {
    const fd = openSync(join(createRunDir(paths, runId), END_MARKER_FILE), 'wx', MARKER_MODE);
    closeSync(fd);
    return true;
  } catch {
    return false; // EEXIST: another recorder has it; anything else: do not guess, leave it.
  }
}

function describeActor(actor: LedgerActor): string {
  const who = actor.role === 'app' ? 'the Treewarden app' : actor.role === 'cli' ? 'treewarden CLI' : actor.role;
  return `${who} (pid ${actor.pid})`;
}

function endReason(run: UnendedRun, kills: readonly KillRecord[]): string {
  const ended = kills.filter((kill) => kill.result === 'killed' || kill.result === 'already_gone');
  const last = ended.at(-1);
  const how = last === undefined ? 'its last process exited' : `its processes were ended by ${describeActor(last.by)}`;
  return `leaked: ${run.why}; ${how}`;
}

function recordEnd(paths: StatePaths, run: UnendedRun, records: readonly LedgerRecord[], options: SettleOptions) {
  const start = records.find((r): r is RunStartRecord => r.kind === 'run_start' && r.runId === run.runId);
  const kills = records.filter((r): r is KillRecord => r.kind === 'kill' && r.runId === run.runId);
  const reason = endReason(run, kills);
  const startedAtMs = start === undefined ? Number.NaN : Date.parse(start.at);
  const now = options.now ?? Date.now();
  appendLedgerRecord(
    paths.ledgerFile,
    {
      kind: 'run_end',
      runId: run.runId,
      ...(run.leaseId !== null ? { leaseId: run.leaseId } : {}),
      classification: 'cancelled',
      exitCode: null,
      signal: null,
      durationMs: Number.isNaN(startedAtMs) ? 0 : Math.max(0, now - startedAtMs),
      killAttempts: kills.reduce((sum, kill) => sum + kill.attempts, 0),
      survivors: [],
      endedWithoutSupervisor: reason,
    },
    options.actor ?? defaultActor(),
  );
  return reason;
}

/** Records the end of every unsupervised run of `scan` that has nothing left alive; returns them. */
export function settleEndedRuns(scan: OrphanScan, options: SettleOptions): SettledRun[] {
  const gone = goneRuns(scan, options.stillAlive ?? (() => false));
  if (gone.length === 0) return [];
  const claimed = gone.filter((run) => claimEnd(options.paths, run.runId));
  if (claimed.length === 0) return [];
  // Read under the claims: an end written since the scan (a late guardian) stays the only one.
  const { records } = readLedger(options.paths.ledgerFile);
  const ended = new Set(records.flatMap((record) => (record.kind === 'run_end' ? [record.runId] : [])));
  return claimed
    .filter((run) => !ended.has(run.runId))
    .map((run) => ({ runId: run.runId, reason: recordEnd(options.paths, run, records, options) }));
}
