/** App bar: views, live/leaked counts, connection state, theme toggle and "New run". */
import { useShallow } from 'zustand/react/shallow';
import { requestPollInterval } from '../actions/actions';
import { formatClock, formatDuration } from '../model/format';
import { tabKeyTarget } from '../model/tab-keys';
import { useAppStore } from '../store/store';
import type { ThemePref, ViewName } from '../store/types';
import { ExportSettingsButton } from './export-settings';

export const VIEWS: ReadonlyArray<{ id: ViewName; label: string }> = [
  { id: 'runs', label: 'Runs' },
  { id: 'sessions', label: 'Sessions' },
  { id: 'system', label: 'All processes' },
  { id: 'scenarios', label: 'Scenarios' },
  { id: 'history', label: 'History' },
];

/** Refresh intervals offered in the app bar (the host accepts 250 ms to 60 s). */
const POLL_CHOICES_MS = [500, 1000, 2000, 5000];

const NEXT_THEME: Record<ThemePref, ThemePref> = { system: 'dark', dark: 'light', light: 'system' };
const THEME_LABEL: Record<ThemePref, string> = { system: '◐ Auto', dark: '☾ Dark', light: '☀ Light' };

/**
 * Live and leaked counts. With the host connection lost they are the last known numbers, not the
 * present: greyed like the rest of the stale screen, the leak pill no longer alarm-red, and said so.
 */
function StaleAwareCounts({
  counts,
  stale,
  takenAtMs,
}: {
  counts: { live: number; leaked: number };
  stale: boolean;
  takenAtMs: number | null;
}) {
  const asOf = takenAtMs === null ? 'before the connection was lost' : `at ${formatClock(takenAtMs)}`;
  return (
    <span
      className={`counts${stale ? ' stale' : ''}`}
      data-testid="counts"
      data-stale={stale ? 'true' : undefined}
      title={stale ? `Last known ${asOf}: the host connection is lost, these may no longer be true` : undefined}
    >
      <span className="count-live">{counts.live} live</span>
      <span className={`count-leaked${counts.leaked > 0 && !stale ? ' hot' : ''}`}>{counts.leaked} leaked</span>
      {stale ? <span className="count-stale">last known</span> : null}
    </span>
  );
}

export function TopBar() {
  // Plain values only: a snapshot comes every poll with new objects (its counts too), and this bar
  // re-renders only when what it shows changed. The time of the snapshot is read only while stale.
  const { view, theme, live, leaked, takenAtMs, connection, pollMs } = useAppStore(
    useShallow((state) => ({
      view: state.view,
      theme: state.theme,
      live: state.snapshot?.counts.live ?? null,
      leaked: state.snapshot?.counts.leaked ?? null,
      takenAtMs: state.connection.status === 'open' ? null : (state.snapshot?.takenAtMs ?? null),
      pollMs: state.snapshot?.pollIntervalMs ?? null,
      connection: state.connection.status,
    })),
  );
  const counts = live === null || leaked === null ? null : { live, leaked };
  const setView = useAppStore((state) => state.setView);
  const setTheme = useAppStore((state) => state.setTheme);
  const setStartFormOpen = useAppStore((state) => state.setStartFormOpen);
  return (
    <header className="topbar">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true" />
        Treewarden
      </div>
      <div
        className="tabs"
        role="tablist"
        aria-label="Views"
        onKeyDown={(event) => {
          // WAI-ARIA tabs: arrows, Home and End move and select; only the selected tab is in the Tab order.
          const index = VIEWS.findIndex((item) => item.id === view);
          const next = tabKeyTarget(event.key, index, VIEWS.length);
          const target = next === null ? undefined : VIEWS[next];
          if (!target) return;
          event.preventDefault();
          setView(target.id);
          document.getElementById(`tab-${target.id}`)?.focus();
        }}
      >
        {VIEWS.map((item) => (
          <button
            key={item.id}
            id={`tab-${item.id}`}
            type="button"
            role="tab"
            aria-selected={view === item.id}
            aria-controls="view-panel"
            tabIndex={view === item.id ? 0 : -1}
            className={`tab${view === item.id ? ' active' : ''}`}
            onClick={() => setView(item.id)}
          >
            {item.label}
          </button>
        ))}
      </div>
      <div className="topbar-right">
        {counts ? <StaleAwareCounts counts={counts} stale={connection !== 'open'} takenAtMs={takenAtMs} /> : null}
        {pollMs !== null ? (
          <select
            className="poll"
            aria-label="Refresh interval"
            value={POLL_CHOICES_MS.includes(pollMs) ? pollMs : ''}
            onChange={(event) => void requestPollInterval(Number(event.target.value))}
          >
            {POLL_CHOICES_MS.includes(pollMs) ? null : <option value="">every {formatDuration(pollMs)}</option>}
            {POLL_CHOICES_MS.map((ms) => (
              <option key={ms} value={ms}>
                every {formatDuration(ms)}
              </option>
            ))}
          </select>
        ) : null}
        <ExportSettingsButton />
        <span className={`conn conn-${connection}`} title={`Host connection: ${connection}`}>
          <span className="conn-dot" />
          <span className="conn-label">{connection === 'open' ? 'connected' : connection}</span>
        </span>
        <button
          type="button"
          className="btn btn-sm btn-ghost"
          onClick={() => setTheme(NEXT_THEME[theme])}
          title="Theme: auto follows the system setting"
        >
          {THEME_LABEL[theme]}
        </button>
        <button
          type="button"
          className="btn btn-sm btn-primary"
          disabled={connection !== 'open'}
          title={connection === 'open' ? 'Start a supervised run' : 'No host connection: nothing can be started'}
          onClick={() => setStartFormOpen(true)}
        >
          New run
        </button>
      </div>
    </header>
  );
}

export function ConnectionNotice() {
  const { status, message, stale } = useAppStore(
    useShallow((state) => ({
      status: state.connection.status,
      message: state.connection.message,
      stale: state.connection.status !== 'open' && state.snapshot !== null,
    })),
  );
  if (status === 'open' || (!message && !stale)) return null;
  return (
    <div className="banner banner-warn" role="status" data-testid="connection-notice">
      <span className="banner-icon" aria-hidden="true">
        ⚡
      </span>
      <div className="banner-body">
        {stale ? (
          <strong data-testid="stale-notice">
            Lost the host connection: what shows is from before and may no longer be true; actions are off until it
            reconnects.{' '}
          </strong>
        ) : null}
        {message}
      </div>
    </div>
  );
}
