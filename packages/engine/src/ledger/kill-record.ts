/** Turns a tree-kill outcome into a ledger `kill` record: which pids, which signals, what survived. */
import type { KillOutcome, KillTimelineAction } from '../kill/types.js';
import type { SignalName } from '../signal/types.js';
import type { LedgerEntry } from './records.js';

/** The timeline actions that are a signal sent, and which signal (`observe`, `verify`, … send nothing). */
const SIGNAL_OF_ACTION: Partial<Record<KillTimelineAction, SignalName>> = {
  SIGTERM: 'SIGTERM',
  stop: 'SIGSTOP',
  SIGKILL: 'SIGKILL',
  continue: 'SIGCONT',
};

/** The signals a kill sent, in the order first sent. */
export function signalsSent(outcome: KillOutcome): SignalName[] {
  const sent = new Set<SignalName>();
  for (const step of outcome.timeline) {
    const signal = SIGNAL_OF_ACTION[step.action];
    if (signal !== undefined) sent.add(signal);
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
