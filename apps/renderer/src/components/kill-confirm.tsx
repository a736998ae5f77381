/** Every kill passes through this confirmation, which repeats the exact identity the user saw. */
import { useEffect, useRef } from 'react';
import { killTree } from '../actions/actions';
import { useAppStore } from '../store/store';
import { syncDialog } from './sync-dialog';

export function KillConfirm() {
  const request = useAppStore((state) => state.confirmKill);
  const askKill = useAppStore((state) => state.askKill);
  const dialog = useRef<HTMLDialogElement>(null);
  const confirmButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (syncDialog(dialog.current, request !== null)) confirmButton.current?.focus();
  }, [request]);

  const confirm = () => {
    if (!request) return;
    askKill(null);
    void killTree(request);
  };

  return (
    <dialog
      ref={dialog}
      className="dialog"
      aria-label="Confirm kill"
      onCancel={() => askKill(null)}
      onClose={() => askKill(null)}
    >
      {request ? (
        <div className="dialog-body">
          <h3>Kill {request.scope === 'subtree' ? 'this subtree' : 'this tree'}?</h3>
          <p>
            pid <strong>{request.target.pid}</strong> started at <code>{request.target.startTime}</code>
          </p>
          <p className="dialog-command">
            <code>{request.command}</code>
          </p>
          <p className="muted">
            Treewarden re-reads the process table first and refuses if this pid is no longer the process you saw. It
            sends SIGTERM, waits, then SIGKILL to every owned group, deepest first, and verifies.
          </p>
          <div className="dialog-actions">
            <button type="button" className="btn" onClick={() => askKill(null)}>
              Cancel
            </button>
            <button ref={confirmButton} type="button" className="btn btn-danger" onClick={confirm}>
              Kill {request.scope === 'subtree' ? 'subtree' : 'tree'}
            </button>
          </div>
        </div>
      ) : null}
    </dialog>
  );
}
