/**
 * The leak banner's neighbour: pile-ups inside live agent sessions (duplicate MCP server sets,
 * stale subagents, a runaway job, a session over budget). Not counted as leaks (their sessions
 * still run), and never cleaned from here: "Open" shows the session, whose card trims each alert
 * after listing exactly what it will signal.
 */
import { liveAlerts } from '@treewarden/protocol';
import { foldPaths } from '../model/prose';
import { alertLabel, plural } from '../model/session-alerts';
import { sessionLabel } from '../model/side-labels';
import { useAppStore } from '../store/store';
import { useBannerFold } from './banner-toggle';
import { Prose, useProseTitle } from './prose';

/** Alerts the banner names before summarising the rest. */
const NAMED_ALERTS = 2;
/** Evidence shown in the banner before it is cut (whole on hover and on the session's card). */
const BANNER_WHY_CHARS = 140;

/** Cut to the banner's room; a code span cut open is closed after the ellipsis, so no backtick shows. */
function shortWhy(why: string): string {
  if (why.length <= BANNER_WHY_CHARS) return why;
  const cut = `${why.slice(0, BANNER_WHY_CHARS - 1)}…`;
  return (cut.split('`').length - 1) % 2 === 1 ? `${cut}\`` : cut;
}

export function AlertBanner() {
  // The sessions array is replaced per snapshot: select it, derive the alerts here (fresh objects would loop).
  const sessionsNow = useAppStore((state) => state.snapshot?.sessions);
  const alerts = liveAlerts(sessionsNow);
  const selectSession = useAppStore((state) => state.selectSession);
  const setView = useAppStore((state) => state.setView);
  const { foldClass, toggle } = useBannerFold();
  const titleOf = useProseTitle();
  const homeDir = useAppStore((state) => state.snapshot?.homeDir);
  if (alerts.length === 0) return null;
  const sessions = new Set(alerts.map(({ session }) => session.id));
  const first = alerts[0];
  const open = () => {
    if (first) selectSession(first.session.id);
    setView('sessions');
  };
  return (
    <div className={`banner banner-warning banner-alerts${foldClass}`} role="status" data-testid="alert-banner">
      <span className="banner-icon" aria-hidden="true">
        ⚠
      </span>
      <div className="banner-body">
        <strong data-testid="alert-count">
          {plural(alerts.length, 'pile-up')} in {plural(sessions.size, 'live agent session')}.
        </strong>{' '}
        <span className="banner-list">
          {alerts.slice(0, NAMED_ALERTS).map(({ session, alert }) => (
            <span key={alert.id} className="banner-orphan" title={titleOf(alert.why)}>
              {alertLabel(alert.kind)} ({plural(alert.pids.length, 'process', 'processes')}) in {sessionLabel(session)}
            </span>
          ))}
          {alerts.length > NAMED_ALERTS ? <span> and {alerts.length - NAMED_ALERTS} more</span> : null}
        </span>
        {alerts.length === 1 && first ? (
          <span className="banner-evidence" title={titleOf(first.alert.why)}>
            {' '}
            — <Prose text={shortWhy(foldPaths(first.alert.why, homeDir))} />
          </span>
        ) : null}
      </div>
      {toggle}
      <button
        type="button"
        className="btn"
        onClick={open}
        title="Open the session: its card lists each pile-up with a Trim that asks first"
      >
        {sessions.size === 1 ? 'Open session' : 'Open sessions'}
      </button>
    </div>
  );
}
