/**
 * Trimming a live session's pile-up: the dialog first lists exactly the alerted identities; only on
 * "Trim" are those sent (the host judges them again and refuses any no longer alerted or changed);
 * then the dialog shows the host's answer per process, and Activity records it.
 */
import type { SessionAlert, SessionView } from '@treewarden/protocol';
import { alertLabel, summarizeTrim, trimTargetsOf } from '../model/session-alerts';
import { sessionLabel } from '../model/side-labels';
import { useAppStore } from '../store/store';
import type { TrimRequest } from '../store/types';
import { type SendResult, send } from '../transport/host';

const store = useAppStore;

export function trimKey(sessionId: string): string {
  return `trim:${sessionId}`;
}

export function askTrim(session: SessionView, alert: SessionAlert): void {
  store.getState().setTrim({
    sessionId: session.id,
    sessionLabel: sessionLabel(session),
    alertId: alert.id,
    kind: alert.kind,
    why: alert.why,
    targets: trimTargetsOf(session, alert),
    phase: 'confirm',
    results: null,
    error: null,
  });
}

/** The reply, or a failure that says the outcome is unknown when the connection broke mid-request. */
async function sendTrim(request: TrimRequest): Promise<SendResult<'trimSession'>> {
  try {
    return await send<'trimSession'>({
      type: 'trimSession',
      sessionId: request.sessionId,
      kind: request.kind,
      targets: request.targets.map(({ pid, startTime }) => ({ pid, startTime })),
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `no answer from the host (${message}); whether anything was signalled is unknown` };
  }
}

export async function confirmTrim(): Promise<void> {
  const request = store.getState().trim;
  if (request === null || request.phase !== 'confirm') return;
  const key = trimKey(request.sessionId);
  store.getState().setTrim({ ...request, phase: 'sending' });
  store.getState().beginAction(key, 'Trimming…');
  try {
    const reply = await sendTrim(request);
    const what = `${alertLabel(request.kind)} of ${request.sessionLabel}`;
    if (!reply.ok) {
      store.getState().setTrim({ ...request, phase: 'done', error: reply.error });
      store.getState().pushOutcome({
        kind: 'trim',
        ok: false,
        title: `Trim of ${what} refused`,
        message: reply.error,
        classification: null,
        reports: [],
        runId: null,
      });
      return;
    }
    const { processes } = reply.result;
    const summary = summarizeTrim(request.targets, processes);
    store.getState().setTrim({ ...request, phase: 'done', results: processes });
    store.getState().pushOutcome({
      kind: 'trim',
      ok: summary.ok,
      title: `${summary.title} (${what})`,
      message:
        processes
          .filter((p) => p.result !== 'killed' && p.result !== 'already_gone')
          .map((p) => `pid ${p.pid}: ${p.result}${p.detail ? ` (${p.detail})` : ''}`)
          .join('; ') || null,
      classification: null,
      reports: [],
      runId: null,
    });
  } finally {
    store.getState().endAction(key);
  }
}
