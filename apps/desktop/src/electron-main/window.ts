/** The one app window: hardened webPreferences, bounds restored and saved, renderer from file. */
import { BrowserWindow, screen } from 'electron';
import { loadWindowState, MIN_HEIGHT, MIN_WIDTH, saveWindowState, type WindowState } from '../node/window-state.js';

/** Bounds are written at most this often while the user drags or resizes. */
const SAVE_DEBOUNCE_MS = 500;

export interface WindowOptions {
  readonly preloadPath: string;
  readonly rendererIndexPath: string;
  readonly stateFile: string;
  readonly iconPath: string;
  /** Called once the window was shown (the start script's ready signal). */
  readonly onShown?: () => void;
}

function currentState(window: BrowserWindow): WindowState {
  const bounds = window.getNormalBounds();
  return { x: bounds.x, y: bounds.y, width: bounds.width, height: bounds.height, maximized: window.isMaximized() };
}

export function createMainWindow(options: WindowOptions): BrowserWindow {
  const displays = screen.getAllDisplays().map((display) => display.workArea);
  const state = loadWindowState(options.stateFile, displays);
  const window = new BrowserWindow({
    ...(state.x === null || state.y === null ? {} : { x: state.x, y: state.y }),
    width: state.width,
    height: state.height,
    minWidth: MIN_WIDTH,
    minHeight: MIN_HEIGHT,
    show: false,
    title: 'Treewarden',
    icon: options.iconPath,
    backgroundColor: '#1e1e1e',
    webPreferences: {
      preload: options.preloadPath, // eng-disable PRELOAD_JS_CHECK: reviewed; it exposes only window.treewarden (preload.cts)
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      // A middle click must not open a link in a new window (the window-open handler denies it too).
      disableBlinkFeatures: 'Auxclick',
    },
  });
  if (state.maximized) window.maximize();
  let timer: NodeJS.Timeout | undefined;
  const save = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (!window.isDestroyed()) saveWindowState(options.stateFile, currentState(window));
    }, SAVE_DEBOUNCE_MS);
  };
  window.on('resize', save);
  window.on('move', save);
  window.on('close', () => {
    clearTimeout(timer);
    saveWindowState(options.stateFile, currentState(window));
  });
  window.once('ready-to-show', () => {
    window.show();
    options.onShown?.();
  });
  void window.loadFile(options.rendererIndexPath);
  return window;
}
