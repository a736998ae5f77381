/**
 * The window's bounds, kept in the state dir between starts. A saved state is only trusted after
 * validation: a corrupt file, absurd sizes or a window left on a monitor that is gone yield
 * the default (or a window moved back onto a visible display), never an invisible window.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const WINDOW_STATE_FILE = 'window-state.json';
export const DEFAULT_WIDTH = 1280;
export const DEFAULT_HEIGHT = 820;
export const MIN_WIDTH = 720;
export const MIN_HEIGHT = 480;
const MAX_DIMENSION = 16_384;

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface WindowState {
  /** Null: let the window manager place it. */
  readonly x: number | null;
  readonly y: number | null;
  readonly width: number;
  readonly height: number;
  readonly maximized: boolean;
}

export const DEFAULT_WINDOW_STATE: WindowState = {
  x: null,
  y: null,
  width: DEFAULT_WIDTH,
  height: DEFAULT_HEIGHT,
  maximized: false,
};

export function windowStatePath(stateDir: string): string {
  return join(stateDir, WINDOW_STATE_FILE);
}

function isFiniteInt(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= 1_000_000;
}

function clampSize(value: unknown, min: number, fallback: number): number {
  return isFiniteInt(value) ? Math.min(Math.max(value, min), MAX_DIMENSION) : fallback;
}

/** A window is visible if a reasonable part of it (its top-left 100×50) lies on some display. */
function isOnSomeDisplay(state: WindowState, displays: readonly Rect[]): boolean {
  if (state.x === null || state.y === null) return true;
  const { x, y } = state;
  return displays.some(
    (area) => x + 100 > area.x && x < area.x + area.width - 50 && y >= area.y - 10 && y < area.y + area.height - 50,
  );
}

export function parseWindowState(raw: unknown, displays: readonly Rect[] = []): WindowState {
  if (typeof raw !== 'object' || raw === null) return DEFAULT_WINDOW_STATE;
  const value = raw as Record<string, unknown>;
  const hasPosition = isFiniteInt(value.x) && isFiniteInt(value.y);
  const state: WindowState = {
    x: hasPosition ? (value.x as number) : null,
    y: hasPosition ? (value.y as number) : null,
    width: clampSize(value.width, MIN_WIDTH, DEFAULT_WIDTH),
    height: clampSize(value.height, MIN_HEIGHT, DEFAULT_HEIGHT),
    maximized: value.maximized === true,
  };
  if (displays.length > 0 && !isOnSomeDisplay(state, displays)) return { ...state, x: null, y: null };
  return state;
}

export function loadWindowState(file: string, displays: readonly Rect[] = []): WindowState {
  try {
    return parseWindowState(JSON.parse(readFileSync(file, 'utf8')), displays);
  } catch {
    return DEFAULT_WINDOW_STATE;
  }
}

/** Written atomically (temp file + rename) so a crash mid-write leaves the previous state. */
export function saveWindowState(file: string, state: WindowState): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(parseWindowState(state))}\n`, { mode: 0o600 });
  renameSync(temp, file);
}
