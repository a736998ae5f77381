/**
 * A recording stand-in for the `electron` module, enough for src/main.ts to run in Node: `app`
 * and windows are event emitters the test drives (ready, ready-to-show, page-title-updated,
 * closed); every call that matters is recorded in order.
 */
import { EventEmitter } from 'node:events';

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

export function createElectronStandIn(options: { readonly gotLock?: boolean } = {}) {
  const calls: string[] = [];
  const windows: StandInWindow[] = [];

  class StandInWindow extends EventEmitter {
    title = '';
    destroyed = false;
    readonly webContents = Object.assign(new EventEmitter(), {
      id: 1,
      isDestroyed: () => false,
      send: () => {},
      setWindowOpenHandler: () => {},
    });
    constructor(readonly options: { readonly title?: string }) {
      super();
      this.title = options.title ?? '';
      windows.push(this);
    }
    setTitle(title: string) {
      this.title = title;
    }
    isDestroyed() {
      return this.destroyed;
    }
    isMinimized() {
      return false;
    }
    isMaximized() {
      return false;
    }
    getNormalBounds() {
      return { x: 10, y: 10, width: 1280, height: 820 };
    }
    restore() {}
    maximize() {}
    focus() {
      calls.push('focus');
    }
    show() {
      calls.push('show');
    }
    loadFile(path: string) {
      calls.push(`loadFile ${path}`);
      return Promise.resolve();
    }
  }

  const app = Object.assign(new EventEmitter(), {
    isPackaged: false,
    requestSingleInstanceLock: () => {
      calls.push('requestLock');
      return options.gotLock ?? true;
    },
    releaseSingleInstanceLock: () => calls.push('releaseLock'),
    whenReady: () => Promise.resolve(),
    enableSandbox: () => calls.push('enableSandbox'),
    quit: () => calls.push('quit'),
    exit: (code: number) => calls.push(`exit ${code}`),
  });
  const menu = {
    buildFromTemplate: (template: unknown) => template,
    setApplicationMenu: () => {
      if (!calls.includes('setApplicationMenu')) calls.push('setApplicationMenu');
    },
  };
  const module = {
    app,
    BrowserWindow: StandInWindow,
    dialog: { showErrorBox: (title: string, content: string) => calls.push(`showErrorBox ${title}: ${content}`) },
    session: {
      defaultSession: {
        setPermissionRequestHandler: () => {},
        setPermissionCheckHandler: () => {},
        webRequest: { onHeadersReceived: () => {} },
      },
    },
    screen: { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] },
    ipcMain: { handle: () => {}, removeHandler: () => {} },
    Menu: menu,
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
        calls.push(`notify ${this.notice.title}: ${this.notice.body}`);
      }
    },
    shell: { openExternal: (url: string) => calls.push(`openExternal ${url}`) },
  };
  return { module, calls, windows, app };
}
