/**
 * What "Clean up all" will end, computed once from the same list the banner counts, so the
 * banner's number and the dialog's always add up: the leaks of recorded runs and of remembered
 * agent sessions are ended together; unregistered trees and trees found from agent markers alone
 * (weaker evidence) are listed as left for their own confirmed action, never ended silently.
 */
import type { OrphanView } from '@treewarden/protocol';
import { splitAgentLeaks } from './agent-leaks';

export interface CleanPlan {
  /** Leaked trees of runs this state dir recorded (ended through `cleanOrphans`). */
  runLeaks: OrphanView[];
  /** Leaks of agent sessions an observer saw live (ended through `cleanAgentLeaks`). */
  agentLeaks: OrphanView[];
  /** Every process the clean-up will signal: runLeaks then agentLeaks. */
  ends: OrphanView[];
  /** Counted by the banner but left for their own confirmation. */
  separate: { unregistered: OrphanView[]; markersOnly: OrphanView[] };
}

/** The plan for one run's clean-up (runId) or for "Clean up all" (runId null). */
export function cleanPlan(orphans: readonly OrphanView[], runId: string | null): CleanPlan {
  const runLeaks = orphans.filter((orphan) => orphan.kind === 'over' && (runId === null || orphan.runId === runId));
  if (runId !== null) {
    return { runLeaks, agentLeaks: [], ends: runLeaks, separate: { unregistered: [], markersOnly: [] } };
  }
  const agent = splitAgentLeaks(orphans);
  return {
    runLeaks,
    agentLeaks: agent.remembered,
    ends: [...runLeaks, ...agent.remembered],
    separate: {
      unregistered: orphans.filter((orphan) => orphan.kind === 'unregistered'),
      markersOnly: agent.markersOnly,
    },
  };
}
