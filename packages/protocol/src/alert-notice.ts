/**
 * What a "pile-up" notification says, decided once for every surface that notifies (the desktop
 * app's main process, the browser's Notification API): alerts of live agent sessions whose id was
 * never seen before. An alert's id is stable while the same processes stay alerted, so each alert
 * is told once, however many snapshots repeat it. The first snapshot is the baseline (alerts already
 * on screen when the UI opened are shown by the banner, not news). Pure.
 */
import type { SessionAlert } from './agents.js';
import type { SessionView } from './model.js';
import type { SessionAlertKind } from './vocabulary.js';

/** Lines a notification body names before it summarises the rest. */
export const ALERT_NOTICE_LINES = 3;
/**
 * Alert ids remembered as told. Past this the oldest are forgotten (a long-lived app sees many
 * alerts come and go); one forgotten could be told again only if it came back after thousands more.
 */
export const MAX_REMEMBERED_ALERT_IDS = 10_000;

/** The words every surface uses for a kind of pile-up. */
export const SESSION_ALERT_LABELS: Record<SessionAlertKind, string> = {
  'duplicate-servers': 'duplicate MCP servers',
  'stale-subagents': 'stale subagents',
  'runaway-job': 'runaway job',
  budget: 'over budget',
  'fd-hog': 'file descriptor hog',
};

export interface AlertNotice {
  readonly title: string;
  readonly body: string;
  /** Ids of the alerts told (a click can open their sessions). */
  readonly alertIds: readonly string[];
  readonly sessionIds: readonly string[];
}

export interface AlertNoticeStep {
  /** Every alert id told or shown so far (bounded): the next call's `previous`. */
  readonly seen: ReadonlySet<string>;
  readonly notice: AlertNotice | null;
}

export interface LiveAlert {
  readonly session: SessionView;
  readonly alert: SessionAlert;
}

/** Alerts of live sessions only: an ended session's pile is a leak, told by the leak notice. */
export function liveAlerts(sessions: readonly SessionView[] | undefined): LiveAlert[] {
  return (sessions ?? []).flatMap((session) =>
    session.state === 'live' ? (session.alerts ?? []).map((alert) => ({ session, alert })) : [],
  );
}

function remember(previous: ReadonlySet<string> | null, ids: readonly string[]): ReadonlySet<string> {
  const seen = new Set(previous ?? []);
  for (const id of ids) {
    // Re-insert so an alert still on screen is the newest entry and never the one forgotten.
    seen.delete(id);
    seen.add(id);
  }
  for (const id of seen) {
    if (seen.size <= MAX_REMEMBERED_ALERT_IDS) break;
    seen.delete(id);
  }
  return seen;
}

function lineOf({ session, alert }: LiveAlert): string {
  const count = `${alert.pids.length} process${alert.pids.length === 1 ? '' : 'es'}`;
  return `${SESSION_ALERT_LABELS[alert.kind]} (${count}) in ${session.agent} session ${session.id}`;
}

export function nextAlertNotice(
  previous: ReadonlySet<string> | null,
  sessions: readonly SessionView[] | undefined,
): AlertNoticeStep {
  const alerts = liveAlerts(sessions);
  const seen = remember(
    previous,
    alerts.map(({ alert }) => alert.id),
  );
  if (previous === null) return { seen, notice: null };
  const fresh = alerts.filter(({ alert }) => !previous.has(alert.id));
  if (fresh.length === 0) return { seen, notice: null };
  const lines = fresh.map(lineOf);
  const rest = lines.length > ALERT_NOTICE_LINES ? [`and ${lines.length - ALERT_NOTICE_LINES} more`] : [];
  const only = fresh.length === 1 ? fresh[0] : undefined;
  return {
    seen,
    notice: {
      title:
        only === undefined
          ? `Treewarden: ${fresh.length} pile-ups in live agent sessions`
          : `Treewarden: ${SESSION_ALERT_LABELS[only.alert.kind]} in a live ${only.session.agent} session`,
      body:
        only === undefined
          ? [...lines.slice(0, ALERT_NOTICE_LINES), ...rest].join('\n')
          : `${lineOf(only)}: ${only.alert.why}`,
      alertIds: fresh.map(({ alert }) => alert.id),
      sessionIds: [...new Set(fresh.map(({ session }) => session.id))],
    },
  };
}
