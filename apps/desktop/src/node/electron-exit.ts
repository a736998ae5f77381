/** What an Electron process's end means to the start script, in one line. */
import { constants } from 'node:os';

/** Chromium's sandbox check aborts with SIGTRAP where AppArmor limits user namespaces. */
const SANDBOX_HINT =
  "on Ubuntu 23.10 and later this is usually Chromium's sandbox refusing AppArmor's user-namespace limits";

export function describeFailedStart(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal !== null) {
    const hint = signal === 'SIGTRAP' ? ` (${SANDBOX_HINT})` : '';
    return `Electron was killed by ${signal} before its window came up${hint}`;
  }
  return `Electron exited with code ${code ?? '?'} before its window came up`;
}

/** The exit status a shell would report for a process that ended this way. */
export function exitStatusOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (signal !== null) return 128 + (constants.signals[signal] ?? 0);
  return code ?? 1;
}
