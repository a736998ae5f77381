/**
 * Agent-session clean-up: sends exactly the identities the user confirmed (processes by pid and
 * start time, containers by id and creation time); the host judges them again and refuses any that
 * changed. Trees found from markers alone, and weakly attributed containers, go only with their own ask.
 */
import type { Identity, OrphanView, SessionContainerRow } from '@treewarden/protocol';
import { agentCleanLines, targetsOf } from '../model/agent-leaks';
import { containerCleanLine, containerTargetsOf } from '../model/session-containers';
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

export function containerStopKey(sessionId?: string): string {
  return `container-stop:${sessionId ?? 'all'}`;
}

/** Stops exactly the confirmed containers through the host (weak ones only with `includeWeak`). */
export async function requestStopContainers(
  containers: readonly SessionContainerRow[],
  options: { sessionId?: string; includeWeak?: boolean } = {},
): Promise<void> {
  if (containers.length === 0) return;
  const key = containerStopKey(options.sessionId);
  store.getState().beginAction(key, 'Stopping…');
  try {
    const reply = await send<'stopSessionContainers'>({
      type: 'stopSessionContainers',
      targets: containerTargetsOf(containers),
      ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
      ...(options.includeWeak === true ? { includeWeak: true } : {}),
    });
    if (!reply.ok) {
      store.getState().pushOutcome({
        kind: 'clean',
        ok: false,
        title: 'Container stop refused',
        message: reply.error,
        classification: null,
        reports: [],
        runId: null,
      });
      return;
    }
    const results = reply.result.containers;
    const stopped = results.filter((c) => c.result === 'stopped' || c.result === 'killed' || c.result === 'gone');
    const failed = results.filter((c) => !stopped.includes(c));
    store.getState().pushOutcome({
      kind: 'clean',
      ok: failed.length === 0,
      title: `Container clean-up: stopped ${stopped.length} of ${results.length} leftover container${results.length === 1 ? '' : 's'}`,
      message: failed.map((c) => `${c.name || c.id.slice(0, 12)}: ${c.result} (${c.detail})`).join('; ') || null,
      classification: null,
      reports: [],
      runId: null,
    });
  } finally {
    store.getState().endAction(key);
  }
}

/**
 * Opens the confirmation that lists what a clean-up will signal, one line per process and per
 * container with its evidence; only on "Clean up" are exactly those identities sent. Markers-only
 * trees say so first; weakly attributed containers are listed only when the user asked for all.
 */
export function confirmAgentClean(
  orphans: readonly OrphanView[],
  options: { sessionId?: string; markersOnly?: boolean; containers?: readonly SessionContainerRow[] } = {},
): void {
  const containers = options.containers ?? [];
  if (orphans.length === 0 && containers.length === 0) return;
  const parts = [
    orphans.length > 0 ? `${orphans.length} leaked agent process${orphans.length === 1 ? '' : 'es'}` : null,
    containers.length > 0 ? `${containers.length} leftover container${containers.length === 1 ? '' : 's'}` : null,
  ].filter((part) => part !== null);
  const count = parts.join(' and ');
  const warning =
    'Found from agent markers alone: no observer saw their session live, so the evidence is weaker. End them only if you know them.';
  const weakNote =
    'Includes containers known only by their compose directory or a bind mount of the session directory (weaker evidence).';
  const hasWeak = containers.some((c) => c.strength === 'weak');
  const { sessionId, markersOnly } = options;
  store.getState().askConfirm({
    title: markersOnly === true ? `End ${count} found from markers alone?` : `Clean up ${count}?`,
    lines: [
      ...(markersOnly === true ? [warning] : []),
      ...(hasWeak ? [weakNote] : []),
      ...agentCleanLines(orphans),
      ...containers.map(containerCleanLine),
    ],
    confirmLabel: markersOnly === true ? 'End them' : 'Clean up',
    onConfirm: () => {
      const scope = {
        ...(sessionId === undefined ? {} : { sessionId }),
        ...(markersOnly === true ? { markersOnly } : {}),
      };
      if (orphans.length > 0) void requestCleanAgentLeaks(targetsOf(orphans), scope);
      if (containers.length > 0)
        void requestStopContainers(containers, {
          ...(sessionId === undefined ? {} : { sessionId }),
          ...(hasWeak ? { includeWeak: true } : {}),
        });
    },
  });
}
