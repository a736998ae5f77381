/** A banner that cannot be missed while leaked processes are alive, with one-click cleanup. */
import { useShallow } from 'zustand/react/shallow';
import { useAppStore } from '../store/store';

/** How many leaked processes the banner names before summarising the rest. */
const NAMED_ORPHANS = 3;

export function OrphanBanner() {
  const orphans = useAppStore(useShallow((state) => state.snapshot?.orphans ?? []));
  const cleaning = useAppStore((state) => 'clean:all' in state.pending);
  const askClean = useAppStore((state) => state.askClean);
  if (orphans.length === 0) return null;
  const runs = new Set(orphans.map((orphan) => orphan.runId ?? 'unknown run'));
  return (
    <div className="banner banner-danger" role="alert" data-testid="orphan-banner">
      <span className="banner-icon" aria-hidden="true">
        ⚠
      </span>
      <div className="banner-body">
        <strong>
          {orphans.length} leaked process{orphans.length === 1 ? '' : 'es'} from {runs.size} ended run
          {runs.size === 1 ? '' : 's'} still alive.
        </strong>{' '}
        <span className="banner-list">
          {orphans.slice(0, NAMED_ORPHANS).map((orphan) => (
            <span
              key={`${orphan.process.pid}:${orphan.process.startTime}`}
              className="banner-orphan"
              title={orphan.reasons.join('\n')}
            >
              pid {orphan.process.pid} <code>{orphan.process.command}</code>
              {orphan.runId ? ` (${orphan.runId})` : ''}
              {orphans.length === 1 && orphan.reasons[0] ? ` — ${orphan.reasons[0]}` : ''}
            </span>
          ))}
          {orphans.length > NAMED_ORPHANS ? <span> and {orphans.length - NAMED_ORPHANS} more</span> : null}
        </span>
      </div>
      <button type="button" className="btn btn-danger" disabled={cleaning} onClick={() => askClean({ runId: null })}>
        {cleaning ? 'Cleaning…' : 'Clean up all'}
      </button>
    </div>
  );
}
