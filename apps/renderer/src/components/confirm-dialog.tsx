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
  /** Why the confirm button waits (e.g. the list of targets is still being read); null: enabled. */
  confirmWaitReason?: string | null;
  children: ReactNode;
}

export function ConfirmDialog({
  label,
  open,
  title,
  confirmLabel,
  onConfirm,
  onCancel,
  confirmWaitReason = null,
  children,
}: ConfirmDialogProps) {
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
            {/* Disabled, not hidden, while it waits: the button never moves under a pointer on its way. */}
            <button
              type="button"
              className="btn btn-danger"
              onClick={onConfirm}
              disabled={confirmWaitReason !== null}
              title={confirmWaitReason ?? undefined}
            >
              {confirmLabel}
            </button>
          </div>
        </div>
      ) : null}
    </dialog>
  );
}
