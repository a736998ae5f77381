/**
 * What History says of a run the ledger has no end for. "running" only when someone still
 * supervises it: a run whose holder and guardian are gone (or whose processes are counted as
 * leaked) is "leaked", never shown like a healthy run.
 */
import type { HistoryEntry, Snapshot } from '@treewarden/protocol';

export type OpenRunStatus = 'running' | 'leaked' | 'no end recorded';

export function openRunStatus(entry: HistoryEntry, snapshot: Snapshot | null): OpenRunStatus {
  const run = snapshot?.leases.flatMap((lease) => lease.runs).find((candidate) => candidate.id === entry.runId);
  const leaking = snapshot?.orphans.some((orphan) => orphan.kind !== 'agent' && orphan.runId === entry.runId) ?? false;
  if (leaking || run?.unsupervised === true || (run?.leakedCount ?? 0) > 0) return 'leaked';
  if (run === undefined || run.phase === 'ended') return 'no end recorded';
  return 'running';
}
