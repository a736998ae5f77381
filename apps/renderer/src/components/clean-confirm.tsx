/** "Clean up" asks first, like a single kill: it names what it will end and why each one leaked. */
import { useShallow } from 'zustand/react/shallow';
import { cleanOrphans } from '../actions/actions';
import { formatWallClock } from '../model/format';
import { useAppStore } from '../store/store';
import { ConfirmDialog } from './confirm-dialog';

/** Leaked processes named one by one in the confirmation before it summarises the rest. */
const LISTED_ORPHANS = 6;

export function CleanConfirm() {
  const request = useAppStore((state) => state.confirmClean);
  const askClean = useAppStore((state) => state.askClean);
  const orphans = useAppStore(
    useShallow((state) =>
      // The default clean-up ends only leaks of runs on record; unregistered trees and agent leaks have their own.
      (state.snapshot?.orphans ?? []).filter(
        (orphan) => orphan.kind === 'over' && (!request?.runId || orphan.runId === request.runId),
      ),
    ),
  );
  const confirm = () => {
    if (!request) return;
    askClean(null);
    void cleanOrphans(request.runId ?? undefined);
  };
  const what = request?.runId ? `the leaked processes of ${request.runId}` : 'every leaked process';
  return (
    <ConfirmDialog
      label="Confirm clean-up"
      open={request !== null}
      title={`End ${what}?`}
      confirmLabel="Clean up"
      onConfirm={confirm}
      onCancel={() => askClean(null)}
    >
      <ul className="dialog-list">
        {orphans.slice(0, LISTED_ORPHANS).map((orphan) => (
          <li key={`${orphan.process.pid}:${orphan.process.startTime}`}>
            pid <strong>{orphan.process.pid}</strong> <code>{orphan.process.command}</code>{' '}
            <span className="muted">
              started {formatWallClock(orphan.process.startedAtMs)}
              {orphan.reasons[0] ? ` · ${orphan.reasons[0]}` : ''}
            </span>
          </li>
        ))}
        {orphans.length > LISTED_ORPHANS ? <li className="muted">and {orphans.length - LISTED_ORPHANS} more</li> : null}
        {orphans.length === 0 ? <li className="muted">None is alive any more; nothing will be signalled.</li> : null}
      </ul>
      <p className="muted">
        Each one is re-read and identity-checked before any signal; a process that changed is refused, not killed.
      </p>
    </ConfirmDialog>
  );
}
