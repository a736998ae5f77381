/**
 * The Electron main process, top to bottom: take the single-instance lock and harden the app
 * (node/app-lifecycle.ts), then once ready start the engine host (its table reads run in a worker
 * thread; its runs get the user's environment, not the app's), open the window, wire IPC and the
 * counts; on quit end the app's runs before exiting. A start that throws shows why and exits 1.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { endNativeThreads, resolveStateDir } from '@treewarden/engine';
import { createEngineHost, createEnginePort, type EngineHost } from '@treewarden/host';
import { app, type BrowserWindow, dialog, session } from 'electron';
import { registerIpc } from './electron-main/ipc.js';
import { desktopNotice } from './electron-main/notify.js';
import { hardenApp, hardenSession } from './electron-main/security.js';
import { createCountsDisplay } from './electron-main/tray.js';
import { createMainWindow } from './electron-main/window.js';
import { createAlertNotifier } from './node/alert-notifier.js';
import { runLifecycle, type StartedApp } from './node/app-lifecycle.js';
import { resolveAppPaths } from './node/app-paths.js';
import { countsOf } from './node/counts-label.js';
import { createIpcRouter, createTrustedSenderCheck } from './node/ipc-router.js';
import { createLeakNotifier } from './node/leak-notifier.js';
import { readyFileFrom, signalReady } from './node/ready-signal.js';
import { userEnvironment } from './node/user-environment.js';
import { windowStatePath } from './node/window-state.js';

const paths = resolveAppPaths({
  isPackaged: app.isPackaged,
  resourcesPath: process.resourcesPath,
  distDir: dirname(fileURLToPath(import.meta.url)),
});
/** Set by `npm start` (start.ts) to learn that the window came up. */
const readyFile = readyFileFrom(process.argv);

function focus(window: BrowserWindow): void {
  if (window.isDestroyed()) return;
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
}

function openWindow(host: EngineHost, quit: () => void): BrowserWindow {
  let window: BrowserWindow | null = null;
  const router = createIpcRouter(
    host,
    createTrustedSenderCheck(() => window?.webContents.id ?? null, paths.rendererFileUrl),
  );
  window = createMainWindow({
    preloadPath: paths.preload,
    rendererIndexPath: paths.rendererIndex,
    stateFile: windowStatePath(resolveStateDir()),
    iconPath: paths.icon,
    onShown: () => signalReady(readyFile, 'window-shown'),
  });
  const unregister = registerIpc(router, window);
  const counts = createCountsDisplay(window, paths.icon, quit);
  const stopCounts = host.onEvent((event) => {
    if (event.type === 'snapshot') counts.update(countsOf(event.snapshot));
  });
  // Whether the app quits now is the life cycle's 'window-all-closed' (not on macOS).
  window.on('closed', () => {
    stopCounts();
    counts.dispose();
    unregister();
  });
  return window;
}

function start(quit: () => void): StartedApp {
  hardenSession(session.defaultSession);
  // Runs get the user's environment: not APPDIR, the bundle's LD_LIBRARY_PATH or ELECTRON_*.
  // Its settings may switch the exporter on: it runs in this host, on its own observer.
  const host = createEngineHost({
    port: createEnginePort({ runEnvironment: userEnvironment(process.env) }),
    exportFromSettings: true,
  });
  try {
    let window = openWindow(host, quit);
    let closing = false;
    const bringUp = (): void => {
      // A click on a notification while the runs are being ended must not open a window onto a closing host.
      if (closing) return;
      if (window.isDestroyed()) window = openWindow(host, quit);
      else focus(window);
    };
    // App-wide, not per window: on macOS the app keeps watching (and telling) with its window closed.
    const leaks = createLeakNotifier(desktopNotice(bringUp));
    const alerts = createAlertNotifier(desktopNotice(bringUp));
    host.onEvent((event) => {
      if (event.type !== 'snapshot') return;
      leaks.onSnapshot(event.snapshot);
      alerts.onSnapshot(event.snapshot);
    });
    const close = async (): Promise<void> => {
      closing = true;
      await host.close();
      // Before the app exits: a thread stopped inside a koffi definition aborts the process.
      await endNativeThreads();
    };
    return { focus: bringUp, close };
  } catch (error) {
    // Close what started; the lease's guardian also ends it when this process exits.
    void host.close();
    throw error;
  }
}

runLifecycle(
  app,
  {
    harden: () => hardenApp(paths.rendererFileUrl),
    start,
    handedOver: () => signalReady(readyFile, 'handed-over'),
    showError: (title, content) => dialog.showErrorBox(title, content),
  },
  process.platform,
);
