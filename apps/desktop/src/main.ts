/**
 * The Electron main process, top to bottom: harden, take the single-instance lock, start the
 * engine host (its table reads run in a worker thread), open the window, wire IPC and the counts,
 * and on quit end the app's runs before exiting.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveStateDir } from '@treewarden/engine/state/index';
import { createEngineHost, createEnginePort, type EngineHost } from '@treewarden/host';
import { app, type BrowserWindow, session } from 'electron';
import { registerIpc } from './electron-main/ipc.js';
import { hardenApp, hardenSession } from './electron-main/security.js';
import { type CountsDisplay, createCountsDisplay } from './electron-main/tray.js';
import { createMainWindow } from './electron-main/window.js';
import { resolveAppPaths } from './node/app-paths.js';
import { countsOf } from './node/counts-label.js';
import { createIpcRouter, createTrustedSenderCheck } from './node/ipc-router.js';
import { windowStatePath } from './node/window-state.js';

const paths = resolveAppPaths({
  isPackaged: app.isPackaged,
  resourcesPath: process.resourcesPath,
  distDir: dirname(fileURLToPath(import.meta.url)),
});

let host: EngineHost | null = null;
let window: BrowserWindow | null = null;
let counts: CountsDisplay | null = null;
let quitting = false;

function focusWindow(): void {
  if (window === null) return;
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
}

/** Quit ends the runs the app started (their lease is released) before the process exits. */
function quit(): void {
  if (quitting) return;
  quitting = true;
  counts?.dispose();
  void (host?.close() ?? Promise.resolve()).finally(() => app.exit(0));
}

function start(): void {
  hardenSession(session.defaultSession);
  host = createEngineHost({ port: createEnginePort() });
  const router = createIpcRouter(
    host,
    createTrustedSenderCheck(() => window?.webContents.id ?? null, paths.rendererFileUrl),
  );
  window = createMainWindow({
    preloadPath: paths.preload,
    rendererIndexPath: paths.rendererIndex,
    stateFile: windowStatePath(resolveStateDir()),
    iconPath: paths.icon,
  });
  const unregister = registerIpc(router, window);
  counts = createCountsDisplay(window, paths.icon, quit);
  host.onEvent((event) => {
    if (event.type === 'snapshot') counts?.update(countsOf(event.snapshot));
  });
  window.on('closed', () => {
    unregister();
    window = null;
    quit();
  });
}

if (!app.requestSingleInstanceLock()) {
  // Another Treewarden window is open: it is focused by its 'second-instance' handler.
  app.quit();
} else {
  hardenApp(paths.rendererFileUrl);
  app.on('second-instance', focusWindow);
  app.on('before-quit', (event) => {
    if (quitting) return;
    event.preventDefault();
    quit();
  });
  app.on('window-all-closed', quit);
  void app.whenReady().then(start);
}
