/** The window: app bar, banners, leases sidebar, the current view, run details and activity. */
import { useLeakNotifications } from '../hooks/use-leak-notifications';
import { useLeakTitle } from '../hooks/use-leak-title';
import { useThemeAttribute } from '../hooks/use-theme';
import { useAppStore } from '../store/store';
import { ActivityPanel } from './activity';
import { AlertBanner } from './alert-banner';
import { CleanConfirm } from './clean-confirm';
import { ConfirmAction } from './confirm-action';
import { HistoryView } from './history-view';
import { KillConfirm } from './kill-confirm';
import { LeaseView } from './lease-view';
import { OrphanBanner } from './orphan-banner';
import { RunDetails } from './run-details';
import { ScenariosView } from './scenarios-view';
import { SessionView } from './session-view';
import { Sidebar } from './sidebar';
import { StartRunDialog } from './start-run';
import { SystemView } from './system-view';
import { ConnectionNotice, TopBar, VIEWS } from './top-bar';
import { TrimDialog } from './trim-dialog';
import { WarningBanner } from './warning-banner';

function CurrentView() {
  const view = useAppStore((state) => state.view);
  switch (view) {
    case 'runs':
      return <LeaseView />;
    case 'sessions':
      return <SessionView />;
    case 'system':
      return <SystemView />;
    case 'scenarios':
      return <ScenariosView />;
    case 'history':
      return <HistoryView />;
  }
}

export function App() {
  useThemeAttribute();
  useLeakNotifications();
  useLeakTitle();
  const showDetails = useAppStore((state) => state.view === 'runs' && state.selectedRunId !== null);
  const waiting = useAppStore((state) => state.snapshot === null && state.view === 'runs');
  const view = useAppStore((state) => state.view);
  // Data shown after the host went away is a picture of the past: greyed, and nothing acts on it.
  const stale = useAppStore((state) => state.connection.status !== 'open' && state.snapshot !== null);
  const viewLabel = VIEWS.find((item) => item.id === view)?.label ?? view;
  return (
    <div className={`app${stale ? ' stale' : ''}`}>
      <a className="skip-link" href="#main">
        Skip to the view
      </a>
      <TopBar />
      <ConnectionNotice />
      <div className="banners" inert={stale} data-testid="banners">
        <WarningBanner />
        <OrphanBanner />
        <AlertBanner />
      </div>
      <div className="body" inert={stale} data-testid="app-body">
        <Sidebar />
        <main className="main" id="main" tabIndex={-1}>
          {/* One h1 per view, for screen readers: the tabs already show its name. */}
          <h1 className="sr-only">{viewLabel}</h1>
          <div className="view" id="view-panel" role="tabpanel" aria-labelledby={`tab-${view}`}>
            {waiting ? <div className="placeholder">Waiting for the host…</div> : <CurrentView />}
          </div>
          <ActivityPanel />
        </main>
        {showDetails ? <RunDetails /> : null}
      </div>
      <KillConfirm />
      <CleanConfirm />
      <ConfirmAction />
      <TrimDialog />
      <StartRunDialog />
    </div>
  );
}
