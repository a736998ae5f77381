/**
 * Opens or closes a <dialog> to match the store. jsdom has no showModal/close, so the tests fall
 * back to the `open` attribute. Returns true only when this call opened the dialog.
 */
export function syncDialog(element: HTMLDialogElement | null, open: boolean): boolean {
  if (!element) return false;
  if (open && !element.open) {
    if (typeof element.showModal === 'function') element.showModal();
    else element.setAttribute('open', '');
    return true;
  }
  if (!open && element.open) {
    if (typeof element.close === 'function') element.close();
    else element.removeAttribute('open');
  }
  return false;
}
