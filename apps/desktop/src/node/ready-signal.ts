/**
 * How `npm start` learns that the app came up. It passes a fresh file path on Electron's command
 * line; the main process creates the file once its window is ready to show, or once it has
 * handed over to an app that was already running. An Electron that ends before the file exists
 * did not come up, whatever its exit status or signal, and the start script falls back to
 * serving the UI on loopback.
 */
import { writeFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';

export const READY_FILE_FLAG = '--treewarden-ready-file=';

export type ReadyState = 'window-shown' | 'handed-over';

export function readyFileArg(file: string): string {
  return `${READY_FILE_FLAG}${file}`;
}

/** The ready file named on the command line; only an absolute path is accepted. */
export function readyFileFrom(argv: readonly string[]): string | null {
  const arg = argv.find((value) => value.startsWith(READY_FILE_FLAG));
  const file = arg?.slice(READY_FILE_FLAG.length) ?? '';
  return isAbsolute(file) ? file : null;
}

/** Creates the file (never overwrites one: the start script made its directory private). */
export function signalReady(file: string | null, state: ReadyState): void {
  if (file === null) return;
  try {
    writeFileSync(file, `${state}\n`, { flag: 'wx', mode: 0o600 });
  } catch {
    // Already signalled, or the start script is gone: nobody is waiting for it.
  }
}
