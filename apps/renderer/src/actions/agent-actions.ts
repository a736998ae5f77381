/**
 * Agent-session clean-up: sends exactly the identities the user confirmed; the host judges them
 * again and refuses any that changed. Trees found from markers alone go only with their own ask.
 */
import type { Identity, OrphanView } from '@treewarden/protocol';
import { agentCleanLines, targetsOf } from '../model/agent-leaks';
import { useAppStore } from '../store/store';
import { send } from '../transport/host';

const store = useAppStore;

export function agentCleanKey(sessionId?: string, markersOnly = false): string {
  return `agent-clean:${sessionId ?? 'all'}${markersOnly ? ':markers' : ''}`;
}

export async function requestCleanAgentLeaks(
  targets: readonly Identity[],
  options: { sessionId?: string; markersOnly?: boolean } = {},
): Promise<void> {
  if (targets.length === 0) return;
  const key = agentCleanKey(options.sessionId, options.markersOnly === true);
  store.getState().beginAction(key, 'Cleaning…');
  try {
    const reply = await send<'cleanAgentLeaks'>({
      type: 'cleanAgentLeaks',
      targets: [...targets],
      ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
      ...(options.markersOnly === true ? { includeMarkersOnly: true } : {}),
    });
    if (!reply.ok) {
      store.getState().pushOutcome({
        kind: 'clean',
        ok: false,
        title: 'Agent clean-up refused',
        message: reply.error,
        classification: null,
        reports: [],
        runId: null,
      });
      return;
    }
    const { processes } = reply.result;
    const ended = processes.filter((p) => p.result === 'killed' || p.result === 'already_gone');
    const failed = processes.filter((p) => p.result !== 'killed' && p.result !== 'already_gone');
    store.getState().pushOutcome({
      kind: 'clean',
      ok: failed.length === 0,
      title: `Agent clean-up: ended ${ended.length} of ${processes.length} leaked process${processes.length === 1 ? '' : 'es'}`,
      message: failed.map((p) => `pid ${p.pid}: ${p.result}${p.detail ? ` (${p.detail})` : ''}`).join('; ') || null,
      classification: null,
      reports: [],
      runId: null,
    });
  } finally {
    store.getState().endAction(key);
  }
}

/**
 * Opens the confirmation that lists what a clean-up will signal, one line per process with its
 * evidence; only on "Clean up" are exactly those identities sent. Markers-only trees say so first.
 */
export function confirmAgentClean(
  orphans: readonly OrphanView[],
  options: { sessionId?: string; markersOnly?: boolean } = {},
): void {
  if (orphans.length === 0) return;
  const count = `${orphans.length} leaked agent process${orphans.length === 1 ? '' : 'es'}`;
  const warning =
    'Found from agent markers alone: no observer saw their session live, so the evidence is weaker. End them only if you know them.';
  store.getState().askConfirm({
    title: options.markersOnly === true ? `End ${count} found from markers alone?` : `Clean up ${count}?`,
    lines: [...(options.markersOnly === true ? [warning] : []), ...agentCleanLines(orphans)],
    confirmLabel: options.markersOnly === true ? 'End them' : 'Clean up',
    onConfirm: () => void requestCleanAgentLeaks(targetsOf(orphans), options),
  });
}
