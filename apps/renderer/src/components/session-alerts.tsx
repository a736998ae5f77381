/**
 * A live session's pile-ups on its card: each alert's kind, its evidence, the exact pids it is
 * about, and a "Trim…" that first lists what it will signal. Not leaks: the session still runs.
 */
import type { SessionView } from '@treewarden/protocol';
import { askTrim, trimKey } from '../actions/trim-actions';
import { useNow } from '../hooks/use-now';
import { formatDuration } from '../model/format';
import { alertLabel, alertsOf, plural } from '../model/session-alerts';
import { useAppStore } from '../store/store';
import { Prose } from './prose';

/** Pids named on the card before the rest are summarised (the Trim dialog lists them all). */
const NAMED_PIDS = 8;

export function SessionAlerts({ session }: { session: SessionView }) {
  const now = useNow();
  const trimming = useAppStore((state) => trimKey(session.id) in state.pending);
  const alerts = alertsOf(session);
  if (alerts.length === 0) return null;
  return (
    <section className="session-alerts" data-testid="session-alerts" aria-label="Pile-ups in this live session">
      {alerts.map((alert) => (
        <div key={alert.id} className="session-alert" data-testid="session-alert" data-kind={alert.kind}>
          <div className="session-alert-head">
            <div>
              <strong>{alertLabel(alert.kind)}</strong>{' '}
              <span className="muted">
                {plural(alert.pids.length, 'process', 'processes')} · for{' '}
                {formatDuration(now - Date.parse(alert.since))}
              </span>
            </div>
            <button
              type="button"
              className="btn btn-danger"
              disabled={trimming}
              onClick={() => askTrim(session, alert)}
              title="Lists exactly the processes it will signal first; the agent and the rest of its session keep running"
            >
              {trimming ? 'Trimming…' : 'Trim…'}
            </button>
          </div>
          <div className="session-alert-why">
            <Prose text={alert.why} />
          </div>
          <div className="session-alert-pids muted">
            pid {alert.pids.slice(0, NAMED_PIDS).join(', ')}
            {alert.pids.length > NAMED_PIDS ? ` and ${alert.pids.length - NAMED_PIDS} more` : ''}
          </div>
        </div>
      ))}
    </section>
  );
}
