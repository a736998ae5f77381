/**
 * A banner that cannot be missed while leaked processes are alive. Its count is the snapshot's
 * one list of leaks (the header, the sidebar and the window title count the same list). "Clean
 * up all" ends the leaks of runs on record; trees of a run cookie this state dir never recorded
 * ("unregistered") end only through a separate, confirmed action, as `orphans --clean --all`.
 */
import type { OrphanView } from '@treewarden/protocol';
import { useShallow } from 'zustand/react/shallow';
import { cleanKey, cleanOrphans } from '../actions/actions';
import { useAppStore } from '../store/store';

/** How many leaked processes the banner names before summarising the rest. */
const NAMED_ORPHANS = 3;

function describeOrphan(orphan: OrphanView): string {
  const run = orphan.runId ? ` (run ${orphan.runId})` : '';
  return `pid ${orphan.process.pid} ${orphan.process.commandLine || orphan.process.command}${run}`;
}

export function OrphanBanner() {
  const orphans = useAppStore(useShallow((state) => state.snapshot?.orphans ?? []));
  const cleaning = useAppStore((state) => cleanKey() in state.pending);
  const cleaningAll = useAppStore((state) => cleanKey(undefined, true) in state.pending);
  const askClean = useAppStore((state) => state.askClean);
  const askConfirm = useAppStore((state) => state.askConfirm);
  if (orphans.length === 0) return null;
  const runs = new Set(orphans.map((orphan) => orphan.runId ?? 'unknown run'));
  const recorded = orphans.filter((orphan) => orphan.kind === 'over');
  const unregistered = orphans.filter((orphan) => orphan.kind === 'unregistered');
  const confirmUnregistered = () =>
    askConfirm({
      title: `End ${unregistered.length} unregistered process${unregistered.length === 1 ? '' : 'es'}${
        recorded.length > 0 ? ` and ${recorded.length} leaked one${recorded.length === 1 ? '' : 's'}` : ''
      }?`,
      lines: [
        'Unregistered: they carry a run cookie this state dir never recorded; another Treewarden or tool may still supervise them.',
        ...orphans.map(describeOrphan),
      ],
      confirmLabel: 'End them',
      onConfirm: () => void cleanOrphans(undefined, true),
    });
  return (
    <div className="banner banner-danger" role="alert" data-testid="orphan-banner">
      <span className="banner-icon" aria-hidden="true">
        ⚠
      </span>
      <div className="banner-body">
        <strong data-testid="orphan-count">
          {orphans.length} leaked process{orphans.length === 1 ? '' : 'es'} from {runs.size} run
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
              {orphan.kind === 'unregistered' ? ' · unregistered' : ''}
              {orphans.length === 1 && orphan.reasons[0] ? ` — ${orphan.reasons[0]}` : ''}
            </span>
          ))}
          {orphans.length > NAMED_ORPHANS ? <span> and {orphans.length - NAMED_ORPHANS} more</span> : null}
        </span>
      </div>
      {recorded.length > 0 ? (
        <button
          type="button"
          className="btn btn-danger"
          disabled={cleaning || cleaningAll}
          onClick={() => askClean({ runId: null })}
          title="End the leaked trees of runs this state dir recorded (unregistered ones stay)"
        >
          {cleaning ? 'Cleaning…' : 'Clean up all'}
        </button>
      ) : null}
      {unregistered.length > 0 ? (
        <button
          type="button"
          className="btn"
          disabled={cleaning || cleaningAll}
          onClick={confirmUnregistered}
          title="Trees of a run cookie this state dir never recorded: ending them asks first"
        >
          {cleaningAll ? 'Ending…' : `End ${unregistered.length} unregistered…`}
        </button>
      ) : null}
    </div>
  );
}
