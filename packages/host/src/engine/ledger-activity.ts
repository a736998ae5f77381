/**
 * The Activity panel's lines rebuilt from the ledger: run endings, kills, lease endings and container
 * stops, in the words the panel uses live, with the recorded error verbatim. Nothing is inferred
 * beyond the record.
 */
import type { ContainerStopResult, LedgerRecord } from '@treewarden/engine';
import type { ActivityEntry, Classification } from '@treewarden/protocol';

const KILL_RESULT_WORDS: Record<string, string> = {
  killed: 'killed',
  already_gone: 'already gone',
  kill_failed: 'kill failed',
  refused: 'refused',
};

const CONTAINER_RESULT_WORDS: Record<ContainerStopResult, string> = {
  stopped: 'stopped',
  killed: 'killed after its stop grace',
  gone: 'already gone',
  changed: 'refused (not the container judged)',
  'not-running': 'not running',
  failed: 'stop failed',
};

function epochOf(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) && ms >= 0 ? ms : 0;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** Lease ids to the names their starts recorded: a person knows a lease by its name, as live. */
export type LeaseNames = ReadonlyMap<string, string>;

function leaseNamesOf(records: readonly LedgerRecord[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const record of records) if (record.kind === 'lease_start') names.set(record.leaseId, record.name);
  return names;
}

/**
 * One record as an activity line; records the panel does not show (starts) give null. A lease is
 * named as its start recorded it; only a lease whose start is not in the ledger keeps its id.
 */
export function activityOf(record: LedgerRecord, leaseNames: LeaseNames = new Map()): ActivityEntry | null {
  const atMs = epochOf(record.at);
  switch (record.kind) {
    case 'run_end':
      return {
        atMs,
        kind: 'run_end',
        ok: record.classification === 'ok' && record.survivors.length === 0,
        title: `${record.runId} ended: ${record.classification}${record.exitCode !== null ? ` (exit ${record.exitCode})` : ''}${record.survivors.length > 0 ? `, ${plural(record.survivors.length, 'survivor')}` : ''}`,
        message: record.error ?? null,
        classification: record.classification as Classification,
        runId: record.runId,
      };
    case 'kill':
      return {
        atMs,
        kind: 'kill',
        ok: record.result === 'killed' || record.result === 'already_gone',
        title: `Kill of pid ${record.target.pid} (${record.reason}): ${KILL_RESULT_WORDS[record.result] ?? record.result}${record.killed.length > 0 ? `, ${plural(record.killed.length, 'process')} ended` : ''}`,
        message: record.error ?? null,
        classification: null,
        runId: record.runId ?? null,
      };
    case 'lease_end':
      return {
        atMs,
        kind: 'lease_end',
        ok: record.survivors.length === 0,
        title: `Lease ${leaseNames.get(record.leaseId) ?? record.leaseId} ${record.reason === 'released' ? 'released' : 'ended: its holder died'}${record.runsEnded.length > 0 ? `, ${plural(record.runsEnded.length, 'run')} ended` : ''}`,
        message: record.survivors.length > 0 ? `${plural(record.survivors.length, 'survivor')} left alive` : null,
        classification: null,
        runId: null,
      };
    case 'container_stop':
      return {
        atMs,
        kind: 'container_stop',
        ok: record.result === 'stopped' || record.result === 'killed' || record.result === 'gone',
        title: `Container ${record.name || record.containerId.slice(0, 12)} (${record.image}) of session ${record.sessionId}: ${CONTAINER_RESULT_WORDS[record.result]}`,
        message: record.detail,
        classification: null,
        runId: null,
      };
    default:
      return null;
  }
}

/** The newest `limit` lines, newest first. */
export function recentActivity(records: readonly LedgerRecord[], limit: number): ActivityEntry[] {
  const lines: ActivityEntry[] = [];
  const leaseNames = leaseNamesOf(records);
  for (let index = records.length - 1; index >= 0 && lines.length < limit; index -= 1) {
    const line = activityOf(records[index] as LedgerRecord, leaseNames);
    if (line !== null) lines.push(line);
  }
  return lines;
}
