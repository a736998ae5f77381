/**
 * The one confirmation every destructive action passes through (a kill, a clean-up). Cancel has
 * the focus when it opens, so Enter or a stray key press never ends a process by accident.
 */
import { type ReactNode, useEffect, useRef } from 'react';
import { syncDialog } from './sync-dialog';

export interface ConfirmDialogProps {
  /** Accessible name of the dialog ("Confirm kill"). */
  label: string;
  open: boolean;
  title: string;
  confirmLabel: string;
  onConfirm(): void;
  onCancel(): void;
  children: ReactNode;
}

export function ConfirmDialog({ label, open, title, confirmLabel, onConfirm, onCancel, children }: ConfirmDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (syncDialog(dialog.current, open)) cancelButton.current?.focus();
  }, [open]);

  return (
    <dialog ref={dialog} className="dialog" aria-label={label} onCancel={onCancel} onClose={onCancel}>
      {open ? (
        <div className="dialog-body">
          <h3>{title}</h3>
          {children}
          <div className="dialog-actions">
            <button ref={cancelButton} type="button" className="btn" onClick={onCancel}>
              Cancel
            </button>
            <button type="button" className="btn btn-danger" onClick={onConfirm}>
              {confirmLabel}
            </button>
          </div>
        </div>
      ) : null}
    </dialog>
  );
}
