/** What a newcomer sees before any run exists: what Treewarden does and three ways to begin. */
import { useAppStore } from '../store/store';

export function EmptyState() {
  const setStartFormOpen = useAppStore((state) => state.setStartFormOpen);
  const setView = useAppStore((state) => state.setView);
  return (
    <div className="empty">
      <div className="empty-mark" aria-hidden="true">
        <svg viewBox="0 0 32 32" width="28" height="28">
          <title>process tree</title>
          <path d="M9 6v18h13M9 15h10" fill="none" stroke="currentColor" strokeWidth="2.5" strokeLinecap="round" />
          <circle cx="9" cy="6" r="3" fill="currentColor" />
          <circle cx="21" cy="15" r="3" fill="currentColor" />
          <circle cx="24" cy="24" r="3" fill="currentColor" />
        </svg>
      </div>
      <h2>No runs yet</h2>
      <p>
        Treewarden starts workers under a lease, shows their whole process tree live, ends it on timeout, and finds what
        leaked from earlier runs.
      </p>
      <div className="empty-actions">
        <button type="button" className="btn btn-primary" onClick={() => setStartFormOpen(true)}>
          Start a run…
        </button>
        <button type="button" className="btn" onClick={() => setView('scenarios')}>
          Try a scenario
        </button>
        <button type="button" className="btn" onClick={() => setView('system')}>
          Browse all processes
        </button>
      </div>
      <p className="muted">
        From a terminal: <code>treewarden run --timeout 60 -- npm test</code> — the run shows up here under its lease.
      </p>
    </div>
  );
}
