/** Desktop notifications of new leaks (Electron `Notification`); a click brings the window up. */

import type { LeakNotice } from '@treewarden/protocol';
import { Notification } from 'electron';

/**
 * A `show` for the leak notifier; a desktop without notifications gets none (the banner still
 * shows). `bringUp` opens the window again when it was closed (macOS keeps the app without one).
 */
export function desktopNotice(bringUp: () => void): (notice: LeakNotice) => void {
  return (notice) => {
    if (!Notification.isSupported()) return;
    const shown = new Notification({ title: notice.title, body: notice.body });
    shown.on('click', bringUp);
    shown.show();
  };
}
