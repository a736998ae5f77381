/**
 * Live and leaked counts where the user sees them without the window: a tray entry (where the
 * desktop has a tray), the application menu, and the window title (which the page cannot change).
 */
import { type BrowserWindow, Menu, nativeImage, Tray } from 'electron';
import { type Counts, countsLabel, windowTitle } from '../node/counts-label.js';
import { keepTitle } from '../node/window-title.js';

export interface CountsDisplay {
  update(counts: Counts): void;
  dispose(): void;
}

function buildMenu(counts: Counts, window: BrowserWindow, quit: () => void): Menu {
  return Menu.buildFromTemplate([
    { label: countsLabel(counts), enabled: false },
    { type: 'separator' },
    { label: 'Show Treewarden', click: () => (window.isMinimized() ? window.restore() : window.show()) },
    { label: 'Quit (ends the app’s runs)', click: quit },
  ]);
}

export function createCountsDisplay(window: BrowserWindow, iconPath: string, quit: () => void): CountsDisplay {
  let tray: Tray | null = null;
  try {
    tray = new Tray(nativeImage.createFromPath(iconPath));
    tray.setToolTip('Treewarden');
  } catch {
    // No tray on this desktop: the menu and the title still show the counts.
  }
  const setTitle = keepTitle(window, windowTitle({ live: 0, leaked: 0 }));
  let last = '';
  const update = (counts: Counts) => {
    const label = countsLabel(counts);
    if (label === last) return;
    last = label;
    const menu = buildMenu(counts, window, quit);
    tray?.setContextMenu(menu);
    tray?.setToolTip(`Treewarden — ${label}`);
    Menu.setApplicationMenu(
      Menu.buildFromTemplate([
        {
          label: 'Treewarden',
          submenu: [
            { label, enabled: false },
            { type: 'separator' },
            { label: 'Quit', accelerator: 'CmdOrCtrl+Q', click: quit },
          ],
        },
        { role: 'editMenu' },
        { role: 'viewMenu' },
      ]),
    );
    setTitle(windowTitle(counts));
  };
  update({ live: 0, leaked: 0 });
  return {
    update,
    dispose: () => tray?.destroy(),
  };
}
