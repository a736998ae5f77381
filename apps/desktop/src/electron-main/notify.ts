/** Desktop notifications of new leaks and pile-ups (Electron `Notification`); a click brings the window up. */

import { Notification } from 'electron';

/**
 * A `show` for the leak and alert notifiers; a desktop without notifications gets none (the banner still
 * shows). `bringUp` opens the window again when it was closed (macOS keeps the app without one).
 */
export function desktopNotice(bringUp: () => void): (notice: { title: string; body: string }) => void {
  return (notice) => {
    if (!Notification.isSupported()) return;
    const shown = new Notification({ title: notice.title, body: notice.body });
    shown.on('click', bringUp);
    shown.show();
  };
}
