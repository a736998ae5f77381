/** Every kill passes through this confirmation, which repeats the exact identity the user saw. */
import { requestKillTree } from '../actions/actions';
import { formatWallClock } from '../model/format';
import { useAppStore } from '../store/store';
import { ConfirmDialog } from './confirm-dialog';

export function KillConfirm() {
  const request = useAppStore((state) => state.confirmKill);
  const askKill = useAppStore((state) => state.askKill);
  const confirm = () => {
    if (!request) return;
    askKill(null);
    void requestKillTree(request);
  };
  const subtree = request?.scope === 'subtree';
  return (
    <ConfirmDialog
      label="Confirm kill"
      open={request !== null}
      title={`Kill ${subtree ? 'this subtree' : 'this tree'}?`}
      confirmLabel={`Kill ${subtree ? 'subtree' : 'tree'}`}
      onConfirm={confirm}
      onCancel={() => askKill(null)}
    >
      {request ? (
        <>
          <p>
            pid <strong>{request.target.pid}</strong>
            {request.startedAtMs !== undefined ? (
              <>
                {' '}
                started <strong data-testid="kill-started">{formatWallClock(request.startedAtMs)}</strong>
              </>
            ) : null}{' '}
            <span className="muted">(identity {request.target.startTime})</span>
          </p>
          <p className="dialog-command">
            <code>{request.command}</code>
          </p>
          <p className="muted">
            Treewarden re-reads the process table first and refuses if this pid is no longer the process you saw. It
            sends SIGTERM, waits, then SIGKILL to every owned group, deepest first, and verifies.
          </p>
        </>
      ) : null}
    </ConfirmDialog>
  );
}
