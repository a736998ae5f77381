/**
 * Between two observer ticks, a cheap look at the live sessions' roots only: one `/proc/PID/stat`
 * read each (Linux). A root that exited (gone, a zombie, or its pid now another process) makes its
 * session's leftovers news, so the caller ticks at once instead of at the next full tick: a leak is
 * then reported within about ROOT_CHECK_INTERVAL_MS of the agent's death, not a whole tick later.
 * Elsewhere there is no such read, and the next tick comes on schedule.
 */
import { readLiveStartTime } from '../../signal/start-time.js';
import type { ProcessIdentity } from '../../table/types.js';

/** How often the roots are looked at between ticks (10 stat reads a second per live session). */
export const ROOT_CHECK_INTERVAL_MS = 100;

/** True when one of these roots is no longer the live process it was. */
export function anyRootExited(
  roots: readonly ProcessIdentity[],
  readStartTime: (pid: number) => string | null = readLiveStartTime,
): boolean {
  if (process.platform !== 'linux' && readStartTime === readLiveStartTime) return false;
  return roots.some((root) => readStartTime(root.pid) !== root.startTime);
}

/**
 * Waits `delayMs`, or less: it returns early (true) once a root exited, or once `stopping()` says so
 * (false then). Returns false when the delay simply passed.
 */
export async function waitForTickOrRootExit(
  roots: () => readonly ProcessIdentity[],
  delayMs: number,
  stopping: () => boolean = () => false,
): Promise<boolean> {
  const dueAt = performance.now() + delayMs;
  for (let left = delayMs; left > 0; left = dueAt - performance.now()) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(ROOT_CHECK_INTERVAL_MS, left)));
    if (stopping()) return false;
    if (anyRootExited(roots())) return true;
  }
  return false;
}
