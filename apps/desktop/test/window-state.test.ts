import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDir } from '../../../test-support/index.js';
import {
  DEFAULT_WINDOW_STATE,
  loadWindowState,
  MIN_WIDTH,
  saveWindowState,
  windowStatePath,
} from '../src/node/window-state.js';

const DISPLAY = { x: 0, y: 0, width: 1920, height: 1080 };

describe('window state', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) removeTempDir(dir);
  });

  function stateFile(): string {
    const dir = makeTempDir('tw-window-');
    dirs.push(dir);
    const file = windowStatePath(join(dir, 'nested'));
    mkdirSync(dirname(file), { recursive: true });
    return file;
  }

  it('round-trips bounds and the maximized flag', () => {
    const file = stateFile();
    const state = { x: 100, y: 80, width: 1400, height: 900, maximized: true };
    saveWindowState(file, state);
    expect(loadWindowState(file, [DISPLAY])).toEqual(state);
  });

  it('falls back to the default for a missing or corrupt file', () => {
    const file = stateFile();
    expect(loadWindowState(file)).toEqual(DEFAULT_WINDOW_STATE);
    saveWindowState(file, DEFAULT_WINDOW_STATE);
    writeFileSync(file, '{"x": 1, "wid');
    expect(loadWindowState(file)).toEqual(DEFAULT_WINDOW_STATE);
  });

  it('clamps absurd sizes and re-centres a window left on a display that is gone', () => {
    const file = stateFile();
    writeFileSync(file, JSON.stringify({ x: 5000, y: 3000, width: 10, height: 'tall', maximized: 'yes' }));
    const loaded = loadWindowState(file, [DISPLAY]);
    expect(loaded).toEqual({
      x: null,
      y: null,
      width: MIN_WIDTH,
      height: DEFAULT_WINDOW_STATE.height,
      maximized: false,
    });
  });

  it('writes atomically: no temp file is left behind', () => {
    const file = stateFile();
    saveWindowState(file, { ...DEFAULT_WINDOW_STATE, x: 1, y: 2 });
    expect(JSON.parse(readFileSync(file, 'utf8')).x).toBe(1);
    expect(readdirSync(dirname(file))).toEqual(['window-state.json']);
  });
});
