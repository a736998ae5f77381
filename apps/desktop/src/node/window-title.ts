/**
 * The window title belongs to the main process: it shows the live/leaked counts ("⚠ 2 leaked").
 * The page's own <title> would replace it on every load and keep it until the counts changed, so
 * the page's title updates are refused and only the counts set it.
 */

export interface TitledWindow {
  on(event: 'page-title-updated', listener: (event: { preventDefault(): void }) => void): unknown;
  setTitle(title: string): void;
  isDestroyed(): boolean;
}

/** Takes the title over; returns the function that sets it from now on. */
export function keepTitle(window: TitledWindow, initial: string): (title: string) => void {
  window.on('page-title-updated', (event) => event.preventDefault());
  const set = (title: string) => {
    if (!window.isDestroyed()) window.setTitle(title);
  };
  set(initial);
  return set;
}
