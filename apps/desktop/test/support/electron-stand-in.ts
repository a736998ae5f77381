/**
 * A recording stand-in for the `electron` module, enough for the main process to run in Node.
 * Every part is typed from Electron's own electron.d.ts (`Pick` of the real interface), so a
 * stand-in that drifts from Electron's signatures fails to compile. It behaves like Electron where
 * the main relies on it: a new window's webContents is announced with 'web-contents-created',
 * closing the last window emits 'window-all-closed', a second `ipcMain.handle` for one channel
 * throws. Calls that matter are recorded in order; handlers main installs are kept for the test
 * to call.
 */
import { EventEmitter } from 'node:events';
import type {
  App,
  BrowserWindow,
  BrowserWindowConstructorOptions,
  Dialog,
  Display,
  HandlerDetails,
  IpcMain,
  IpcMainInvokeEvent,
  Session,
  Shell,
  WebContents,
  WebFrameMain,
  WebRequest,
} from 'electron';

export interface RecordedEvent {
  prevented: boolean;
  preventDefault(): void;
}

export function recordedEvent(): RecordedEvent {
  const event = {
    prevented: false,
    preventDefault() {
      event.prevented = true;
    },
  };
  return event;
}

export type PermissionRequestHandler = NonNullable<Parameters<Session['setPermissionRequestHandler']>[0]>;
export type PermissionCheckHandler = NonNullable<Parameters<Session['setPermissionCheckHandler']>[0]>;
export type HeadersReceivedListener = NonNullable<Parameters<WebRequest['onHeadersReceived']>[0]>;
export type WindowOpenHandler = Parameters<WebContents['setWindowOpenHandler']>[0];
export type InvokeHandler = Parameters<IpcMain['handle']>[1];

/** What Electron hands a window-open handler for `window.open(url)` from the page. */
export function windowOpenDetails(url: string): HandlerDetails {
  return {
    url,
    frameName: '',
    features: '',
    disposition: 'new-window',
    referrer: { url: '', policy: 'strict-origin-when-cross-origin' },
  };
}

export interface StandInOptions {
  readonly gotLock?: boolean;
  /** Hold `app.whenReady()` until the test calls `ready()` (to change the world before start). */
  readonly holdReady?: boolean;
}

/** A frame as main sees it on an IPC event: only its URL is read (the test may move it). */
export type StandInFrame = { -readonly [K in keyof Pick<WebFrameMain, 'url'>]: WebFrameMain[K] };

type WindowSurface = Pick<
  BrowserWindow,
  | 'setTitle'
  | 'isDestroyed'
  | 'isMinimized'
  | 'isMaximized'
  | 'isVisible'
  | 'getNormalBounds'
  | 'restore'
  | 'minimize'
  | 'maximize'
  | 'show'
  | 'hide'
  | 'focus'
  | 'close'
  | 'loadFile'
  | 'loadURL'
>;
type WebContentsSurface = Pick<WebContents, 'id' | 'isDestroyed' | 'send' | 'setWindowOpenHandler'>;

export function createElectronStandIn(options: StandInOptions = {}) {
  const calls: string[] = [];
  const windows: StandInWindow[] = [];
  /** Every notification shown; the test clicks them with `emit('click')`. */
  const notifications: EventEmitter[] = [];
  const invokeHandlers = new Map<string, InvokeHandler>();
  const onChannels = new Set<string>();
  const installed: {
    permissionRequest?: PermissionRequestHandler;
    permissionCheck?: PermissionCheckHandler;
    headersReceived?: HeadersReceivedListener;
  } = {};
  let nextWebContentsId = 1;
  let ready: () => void = () => {};
  const readyPromise = new Promise<void>((resolve) => {
    ready = resolve;
  });
  if (options.holdReady !== true) ready();

  class StandInWebContents extends EventEmitter implements WebContentsSurface {
    readonly id = nextWebContentsId++;
    readonly mainFrame: StandInFrame = { url: '' };
    destroyed = false;
    windowOpenHandler: WindowOpenHandler | null = null;
    /** Channels and payloads main pushed to this page. */
    readonly sent: { channel: string; payload: unknown }[] = [];
    isDestroyed() {
      return this.destroyed;
    }
    send(channel: string, ...args: unknown[]) {
      this.sent.push({ channel, payload: args[0] });
    }
    setWindowOpenHandler(handler: WindowOpenHandler) {
      this.windowOpenHandler = handler;
    }
  }

  class StandInWindow extends EventEmitter implements WindowSurface {
    title = '';
    destroyed = false;
    minimized = false;
    visible = false;
    readonly webContents = new StandInWebContents();
    constructor(readonly options: BrowserWindowConstructorOptions) {
      super();
      this.title = options.title ?? '';
      this.visible = options.show !== false;
      windows.push(this);
      calls.push('new BrowserWindow');
      // Electron announces every new web contents before the constructor returns.
      app.emit('web-contents-created', { preventDefault: () => {} }, this.webContents);
    }
    setTitle(title: string) {
      this.title = title;
    }
    isDestroyed() {
      return this.destroyed;
    }
    isMinimized() {
      return this.minimized;
    }
    isMaximized() {
      return false;
    }
    isVisible() {
      return this.visible;
    }
    getNormalBounds() {
      return { x: 10, y: 10, width: 1280, height: 820 };
    }
    restore() {
      calls.push(`restore ${this.webContents.id}`);
      this.minimized = false;
      this.visible = true;
    }
    minimize() {
      this.minimized = true;
    }
    maximize() {}
    show() {
      calls.push(`show ${this.webContents.id}`);
      this.visible = true;
    }
    hide() {
      this.visible = false;
    }
    focus() {
      calls.push(`focus ${this.webContents.id}`);
    }
    /** Like the user closing it: 'close', 'closed', then 'window-all-closed' if it was the last. */
    close() {
      if (this.destroyed) return;
      this.emit('close', recordedEvent());
      this.destroyed = true;
      this.webContents.destroyed = true;
      this.emit('closed');
      if (windows.every((window) => window.destroyed)) app.emit('window-all-closed', recordedEvent());
    }
    loadFile(path: string) {
      calls.push(`loadFile ${path}`);
      return Promise.resolve();
    }
    loadURL(url: string) {
      calls.push(`loadURL ${url}`);
      return Promise.resolve();
    }
  }

  const app = Object.assign(new EventEmitter(), {
    isPackaged: false,
    requestSingleInstanceLock: () => {
      calls.push('requestLock');
      return options.gotLock ?? true;
    },
    releaseSingleInstanceLock: () => {
      calls.push('releaseLock');
    },
    whenReady: () => readyPromise,
    enableSandbox: () => {
      calls.push('enableSandbox');
    },
    quit: () => {
      calls.push('quit');
    },
    exit: (code?: number) => {
      calls.push(`exit ${code ?? 0}`);
    },
  } satisfies Pick<
    App,
    | 'isPackaged'
    | 'requestSingleInstanceLock'
    | 'releaseSingleInstanceLock'
    | 'whenReady'
    | 'enableSandbox'
    | 'quit'
    | 'exit'
  >);

  const defaultSession = {
    setPermissionRequestHandler: (handler: PermissionRequestHandler | null) => {
      if (handler !== null) installed.permissionRequest = handler;
    },
    setPermissionCheckHandler: (handler: PermissionCheckHandler | null) => {
      if (handler !== null) installed.permissionCheck = handler;
    },
    webRequest: {
      onHeadersReceived: (listener: HeadersReceivedListener | null) => {
        if (listener !== null) installed.headersReceived = listener;
      },
    },
  } satisfies Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'> & {
    webRequest: { onHeadersReceived(listener: HeadersReceivedListener | null): void };
  };

  const ipcMain = {
    handle: (channel: string, listener: InvokeHandler) => {
      // Electron refuses a second handler for a channel; a window opened twice must not try.
      if (invokeHandlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
      invokeHandlers.set(channel, listener);
    },
    removeHandler: (channel: string) => {
      invokeHandlers.delete(channel);
    },
    on: (channel: string) => {
      onChannels.add(channel);
    },
  } satisfies Pick<IpcMain, 'handle' | 'removeHandler'> & { on(channel: string): void };

  const module = {
    app,
    BrowserWindow: StandInWindow,
    dialog: {
      showErrorBox: (title: string, content: string) => {
        calls.push(`showErrorBox ${title}: ${content}`);
      },
    } satisfies Pick<Dialog, 'showErrorBox'>,
    session: { defaultSession },
    screen: {
      getAllDisplays: (): Pick<Display, 'workArea'>[] => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }],
    },
    ipcMain,
    Menu: {
      buildFromTemplate: (template: unknown) => template,
      setApplicationMenu: () => {
        if (!calls.includes('setApplicationMenu')) calls.push('setApplicationMenu');
      },
    },
    Tray: class {
      constructor() {
        // Like a desktop without a tray: the title and the menu still show the counts.
        throw new Error('no tray here');
      }
    },
    nativeImage: { createFromPath: (path: string) => path },
    Notification: class extends EventEmitter {
      static isSupported = () => true;
      constructor(readonly notice: { readonly title: string; readonly body: string }) {
        super();
      }
      show() {
        notifications.push(this);
        calls.push(`notify ${this.notice.title}: ${this.notice.body}`);
      }
    },
    shell: {
      openExternal: async (url: string) => {
        calls.push(`openExternal ${url}`);
      },
    } satisfies Pick<Shell, 'openExternal'>,
  };

  /**
   * Calls the handler main registered for `channel` as Electron would for a message from
   * `frame` of `contents`. Main reads only `sender` and `senderFrame` of the event.
   */
  async function invoke(
    channel: string,
    from: { readonly contents: StandInWebContents; readonly frame: StandInFrame | null },
    payload: unknown,
  ): Promise<unknown> {
    const handler = invokeHandlers.get(channel);
    if (handler === undefined) throw new Error(`no handler for ${channel}`);
    const event = { sender: from.contents, senderFrame: from.frame };
    return handler(event as unknown as IpcMainInvokeEvent, payload);
  }

  return {
    module,
    calls,
    windows,
    notifications,
    app,
    installed,
    ready,
    invoke,
    /** Web contents of no window of ours (another page, a devtools frame). */
    foreignContents: () => new StandInWebContents(),
    handledChannels: () => new Set([...invokeHandlers.keys(), ...onChannels]),
    openWindows: () => windows.filter((window) => !window.destroyed),
  };
}

export type ElectronStandIn = ReturnType<typeof createElectronStandIn>;
export type StandInWindow = ElectronStandIn['windows'][number];
