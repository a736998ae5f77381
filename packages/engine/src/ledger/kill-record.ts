/** Turns a tree-kill outcome into a ledger `kill` record: which pids, which signals, what survived. */
import type { KillOutcome } from '../kill/types.js';
import type { SignalName } from '../signal/types.js';
import type { LedgerEntry } from './records.js';

function signalsSent(outcome: KillOutcome): SignalName[] {
  const sent = new Set<SignalName>();
  for (const step of outcome.timeline) {
    if (step.action === 'SIGTERM' || step.action === 'SIGKILL') sent.add(step.action);
  }
  return [...sent];
}

export function killRecordOf(
  outcome: KillOutcome,
  runId: string | null,
  leaseId: string | null,
  reason: string,
): LedgerEntry {
  return {
    kind: 'kill',
    ...(runId !== null ? { runId } : {}),
    ...(leaseId !== null ? { leaseId } : {}),
    reason,
    target: outcome.target,
    result: outcome.result,
    signals: signalsSent(outcome),
    pids: [...new Set(outcome.timeline.flatMap((step) => step.pids ?? []))],
    killed: outcome.killed,
    survivors: outcome.survivors,
    attempts: outcome.attempts,
    ...(outcome.error !== undefined ? { error: outcome.error } : {}),
  };
}
