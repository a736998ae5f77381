/**
 * Asks before a destructive action other than a single kill (releasing a lease with live runs,
 * ending unregistered trees) and lists what it will end. Cancel has the focus: a stray Enter
 * never ends anything.
 */
import { useEffect, useRef } from 'react';
import { useAppStore } from '../store/store';
import { syncDialog } from './sync-dialog';

/** Lines listed before the rest are summarised. */
const LISTED_LINES = 8;

export function ConfirmAction() {
  const request = useAppStore((state) => state.confirmAction);
  const askConfirm = useAppStore((state) => state.askConfirm);
  const dialog = useRef<HTMLDialogElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (syncDialog(dialog.current, request !== null)) cancelButton.current?.focus();
  }, [request]);

  const confirm = () => {
    if (!request) return;
    askConfirm(null);
    request.onConfirm();
  };

  return (
    <dialog
      ref={dialog}
      className="dialog"
      aria-label={request?.title ?? 'Confirm'}
      onCancel={() => askConfirm(null)}
      onClose={() => askConfirm(null)}
    >
      {request ? (
        <div className="dialog-body">
          <h3>{request.title}</h3>
          {/* Focusable so a keyboard can scroll a long list (arrows, Page Down) and, focused, read every line whole. */}
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take the focus to scroll */}
          <ul className="confirm-lines" tabIndex={0} aria-label="What it will signal">
            {request.lines.slice(0, LISTED_LINES).map((line) => (
              <li key={line} title={line}>
                <code>{line}</code>
              </li>
            ))}
            {request.lines.length > LISTED_LINES ? <li>and {request.lines.length - LISTED_LINES} more</li> : null}
          </ul>
          <div className="dialog-actions">
            <button ref={cancelButton} type="button" className="btn" onClick={() => askConfirm(null)}>
              Cancel
            </button>
            <button type="button" className="btn btn-danger" onClick={confirm}>
              {request.confirmLabel}
            </button>
          </div>
        </div>
      ) : null}
    </dialog>
  );
}
