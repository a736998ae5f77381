/**
 * The main process's life, as plain Node over the few `app` calls it needs (tested with a
 * recording stand-in): take the single-instance lock, start once ready, and end in one of two
 * ways. A start that throws (a relative TREEWARDEN_HOME, an unwritable state dir) shows the error
 * and exits non-zero: a windowless process must not keep the lock, or every later launch would
 * quit silently. A quit gives the lock up at once, because ending the app's runs may take the
 * host up to its own bound: a launch meanwhile starts a fresh app instead of focusing a window
 * that is already gone. On macOS an app stays open without windows (the dock's `activate` opens
 * one again); elsewhere closing the last window quits.
 */

export interface LifecycleEvent {
  preventDefault(): void;
}

/** The part of Electron's `app` the life cycle uses. */
export interface AppControl {
  requestSingleInstanceLock(): boolean;
  releaseSingleInstanceLock(): void;
  whenReady(): Promise<unknown>;
  on(
    event: 'second-instance' | 'before-quit' | 'window-all-closed' | 'activate',
    listener: (event: LifecycleEvent) => void,
  ): void;
  quit(): void;
  exit(code: number): void;
}

export interface StartedApp {
  /** Brings the window to the front (restored, shown), opening a new one when none is open. */
  focus(): void;
  /** Ends the app's runs (releases its lease) and everything else it holds; bounded by the host. */
  close(): Promise<void>;
}

export interface LifecycleHooks {
  /** App-wide hardening; runs before anything can create a window. */
  harden(): void;
  /** Creates the host and the window. `quit` is what every "Quit" in the app calls. */
  start(quit: () => void): StartedApp | Promise<StartedApp>;
  /** The app handed over to one that already runs (it focuses its own window). */
  handedOver(): void;
  /** dialog.showErrorBox: a modal dialog once ready, stderr before (on Linux). */
  showError(title: string, content: string): void;
}

export const START_FAILED_EXIT_CODE = 1;
export const START_FAILED_TITLE = 'Treewarden could not start';

export interface Lifecycle {
  quit(): void;
  readonly quitting: boolean;
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Where an app without windows keeps running (macOS convention). */
function keepsRunningWithoutWindows(platform: NodeJS.Platform): boolean {
  return platform === 'darwin';
}

export function runLifecycle(app: AppControl, hooks: LifecycleHooks, platform: NodeJS.Platform): Lifecycle {
  let started: StartedApp | null = null;
  let quitting = false;

  const quit = (): void => {
    if (quitting) return;
    quitting = true;
    app.releaseSingleInstanceLock();
    void (started?.close() ?? Promise.resolve()).finally(() => app.exit(0));
  };

  const failStart = (error: unknown): void => {
    quitting = true;
    app.releaseSingleInstanceLock();
    hooks.showError(START_FAILED_TITLE, describeError(error));
    app.exit(START_FAILED_EXIT_CODE);
  };

  if (!app.requestSingleInstanceLock()) {
    // Another Treewarden is open: its 'second-instance' handler focuses its window.
    hooks.handedOver();
    app.quit();
    return { quit: () => app.quit(), quitting: true };
  }
  hooks.harden();
  const bringUp = (): void => {
    if (!quitting) started?.focus();
  };
  app.on('second-instance', bringUp);
  // The dock icon clicked (macOS): a window again if the user closed it.
  app.on('activate', bringUp);
  app.on('before-quit', (event) => {
    // Always prevented: a second Cmd+Q while the runs are being ended must not cut the close
    // short; app.exit(0) (which emits no before-quit) ends the app once the host closed.
    event.preventDefault();
    quit();
  });
  app.on('window-all-closed', () => {
    if (!keepsRunningWithoutWindows(platform)) quit();
  });
  void app
    .whenReady()
    .then(() => hooks.start(quit))
    .then((ready) => {
      started = ready;
    })
    .catch(failStart);
  return {
    quit,
    get quitting() {
      return quitting;
    },
  };
}
