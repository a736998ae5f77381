/** Desktop notifications of new leaks (Electron `Notification`); a click brings the window up. */

import type { LeakNotice } from '@treewarden/protocol';
import { type BrowserWindow, Notification } from 'electron';

/** A `show` for the leak notifier; a desktop without notifications gets none (the banner still shows). */
export function desktopNotice(
  window: BrowserWindow,
  focus: (window: BrowserWindow) => void,
): (notice: LeakNotice) => void {
  return (notice) => {
    if (!Notification.isSupported()) return;
    const shown = new Notification({ title: notice.title, body: notice.body });
    shown.on('click', () => focus(window));
    shown.show();
  };
}
