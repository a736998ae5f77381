/**
 * Agent sessions in the sidebar: agent, directory, age, state, pile-ups while live and CPU/memory
 * curves; arrow keys move, Enter opens.
 */
import type { SessionAlertKind, SessionView } from '@treewarden/protocol';
import { handleListKey } from '../hooks/use-list-keys';
import { useNow } from '../hooks/use-now';
import { formatDuration, formatFullDateTime } from '../model/format';
import { alertLabel, alertsOf, plural } from '../model/session-alerts';
import { isCurveFinal } from '../model/session-samples';
import { sessionLabel } from '../model/side-labels';
import { useAppStore } from '../store/store';
import { SessionSparklines } from './session-curves';

export interface SessionSummary {
  id: string;
  agent: string;
  label: string;
  cwd: string | null;
  state: SessionView['state'];
  startedAtMs: number;
  endedAtMs: number | null;
  members: number;
  leaked: number;
  /** Pile-ups judged while it lives (kinds, in the host's order); none once it ended. */
  alerts: SessionAlertKind[];
  /** Ended with nothing of it alive: its curves stop where it ended. */
  curveFinal: boolean;
}

export function summarizeSession(session: SessionView): SessionSummary {
  return {
    id: session.id,
    agent: session.agent,
    label: sessionLabel(session),
    cwd: session.cwd,
    state: session.state,
    startedAtMs: Date.parse(session.startedAt),
    endedAtMs: session.endedAt === null ? null : Date.parse(session.endedAt),
    members: session.members.length,
    leaked: session.leaked.length,
    alerts: alertsOf(session).map((alert) => alert.kind),
    curveFinal: isCurveFinal(session),
  };
}

function SessionAge({ session }: { session: SessionSummary }) {
  const now = useNow();
  if (session.endedAtMs !== null)
    return (
      <span title={`ended ${formatFullDateTime(session.endedAtMs)}`}>
        ended {formatDuration(now - session.endedAtMs)} ago
      </span>
    );
  return (
    <span title={`started ${formatFullDateTime(session.startedAtMs)}`}>
      {formatDuration(now - session.startedAtMs)}
    </span>
  );
}

export function SessionList({ sessions, label }: { sessions: SessionSummary[]; label: string }) {
  const selected = useAppStore((state) => (state.view === 'sessions' ? state.selectedSessionId : null));
  const selectSession = useAppStore((state) => state.selectSession);
  const setView = useAppStore((state) => state.setView);
  const open = (id: string) => {
    selectSession(id);
    setView('sessions');
  };
  return (
    <div
      className="lease-list"
      role="listbox"
      aria-label={label}
      tabIndex={0}
      onKeyDown={(event) =>
        handleListKey(event, {
          keys: sessions.map((session) => session.id),
          activeKey: selected,
          setActive: selectSession,
          onEnter: open,
        })
      }
    >
      {sessions.map((session) => (
        <div
          key={session.id}
          role="option"
          tabIndex={-1}
          aria-selected={session.id === selected}
          data-testid="session-item"
          className={`lease-item session-item${session.id === selected ? ' active' : ''}${session.leaked > 0 ? ' leaky' : ''}`}
          onMouseDown={() => open(session.id)}
          title={`${session.agent} in ${session.cwd ?? 'an unknown directory'}`}
        >
          <div className="lease-line">
            <span className={`dot ${session.state === 'live' ? 'dot-alive' : 'dot-released'}`} aria-hidden="true" />
            <span className="lease-name">{session.label}</span>
            {session.leaked > 0 ? <span className="badge badge-bad">{session.leaked} leaked</span> : null}
            {session.alerts.length > 0 ? (
              <span
                className="badge badge-warn"
                data-testid="session-alert-badge"
                title={session.alerts.map(alertLabel).join(', ')}
              >
                {/* Short, so a narrow sidebar keeps the session's name; the kinds are in the title and on the card. */}
                {plural(session.alerts.length, 'pile-up')}
              </span>
            ) : null}
          </div>
          <div className="lease-sub">
            {session.state === 'live' ? (
              <>
                <span className="holder-alive">live</span>
                <span>·</span>
              </>
            ) : null}
            <SessionAge session={session} />
            <span>·</span>
            <span>
              {session.members} member{session.members === 1 ? '' : 's'}
            </span>
          </div>
          <SessionSparklines sessionId={session.id} final={session.curveFinal} />
        </div>
      ))}
    </div>
  );
}
