/**
 * `watch`'s pile-up alerts: one `alert-found` event when an alert id is first raised and one
 * `alert-cleared` when it is gone, and the automatic trim of only the kinds the user opted into
 * (`autoTrim.kinds` in agent-alerts.json; none by default), once an alert has stood
 * `autoTrim.afterSeconds`, each alert id tried once (a refusal is reported, never retried).
 */
import {
  type AgentObservation,
  type AlertConfig,
  type AlertTracker,
  autoTrims,
  createAlertTracker,
  type TrackedAlert,
  toSessionAlert,
  trimAlerts,
} from '@treewarden/engine';
import { terminalText } from '../terminal-text.js';

type Emit = (event: Record<string, unknown>, text: string) => Promise<void>;

export interface WatchAlerts {
  tick(observation: AgentObservation, emit: Emit): Promise<void>;
}

function foundEvent(alert: TrackedAlert): [Record<string, unknown>, string] {
  const body = {
    type: 'alert-found',
    sessionId: alert.sessionId,
    agent: alert.agent,
    ...toSessionAlert(alert, alert.sinceMs),
  };
  const pids = alert.processes.map((entry) => entry.pid).join(' ');
  return [body, `alert: ${alert.kind} in ${terminalText(alert.sessionId)}: pids ${pids}: ${terminalText(alert.why)}`];
}

function clearedEvent(alert: TrackedAlert): [Record<string, unknown>, string] {
  const pids = alert.processes.map((entry) => entry.pid);
  return [
    { type: 'alert-cleared', sessionId: alert.sessionId, agent: alert.agent, id: alert.id, kind: alert.kind, pids },
    `alert cleared: ${alert.kind} in ${terminalText(alert.sessionId)}: pids ${pids.join(' ')}`,
  ];
}

async function autoTrim(
  alerts: readonly TrackedAlert[],
  config: AlertConfig,
  context: { readonly ledgerFile: string; readonly attempted: Set<string> },
  emit: Emit,
): Promise<void> {
  const now = Date.now();
  const due = alerts.filter(
    (alert) =>
      autoTrims(config, alert.kind) &&
      now - alert.sinceMs >= config.autoTrim.afterSeconds * 1000 &&
      !context.attempted.has(alert.id),
  );
  for (const alert of due) context.attempted.add(alert.id);
  if (due.length === 0) return;
  for (const trimmed of await trimAlerts(due, { ledgerFile: context.ledgerFile }))
    await emit(
      {
        type: 'alert-trimmed',
        sessionId: trimmed.alert.sessionId,
        id: trimmed.alert.id,
        kind: trimmed.alert.kind,
        processes: trimmed.processes,
      },
      `trimmed ${trimmed.alert.kind} in ${trimmed.alert.sessionId}: ${trimmed.processes.map((p) => `${p.pid} ${p.result}`).join(', ')}`,
    );
}

export function createWatchAlerts(config: AlertConfig, ledgerFile: string): WatchAlerts {
  const tracker: AlertTracker = createAlertTracker({ config });
  const attempted = new Set<string>();
  return {
    async tick(observation, emit) {
      const tick = tracker.tick(observation);
      for (const alert of tick.found) await emit(...foundEvent(alert));
      for (const alert of tick.cleared) {
        attempted.delete(alert.id);
        await emit(...clearedEvent(alert));
      }
      await autoTrim(tick.alerts, config, { ledgerFile, attempted }, emit);
    },
  };
}
