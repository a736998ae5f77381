/**
 * Between two observer ticks, a cheap look at the live sessions' roots only (Linux). A root that
 * exited (gone, a zombie, or its pid now another process) makes its session's leftovers news, so
 * the caller ticks at once instead of at the next full tick: a leak is then reported within about
 * ROOT_CHECK_INTERVAL_MS of the agent's death, not a whole tick later. Elsewhere there is no such
 * read, and the next tick comes on schedule.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { readLiveStartTime } from '../../signal/start-time.js';
import { parseStatBytes } from '../../table/linux-stat.js';
import { identityKey, type ProcessIdentity } from '../../table/types.js';
import { createExitWatch } from './exit-watch.js';

/**
 * How often the roots are looked at between ticks (4 stat reads a second per live session). Each
 * look is a timer wake and a pread per root (~0.4 ms of kernel time a wake in a VM): at 100 ms it
 * was an idle observer's largest cost with live sessions. 250 ms still reports a leak well within
 * a second of the agent's death (the look, then one focused tick).
 */
export const ROOT_CHECK_INTERVAL_MS = 250;

/** True when one of these roots is no longer the live process it was. */
export function anyRootExited(
  roots: readonly ProcessIdentity[],
  readStartTime: (pid: number) => string | null = readLiveStartTime,
): boolean {
  if (process.platform !== 'linux' && readStartTime === readLiveStartTime) return false;
  return roots.some((root) => readStartTime(root.pid) !== root.startTime);
}

/** The roots a watch looks at, each by a held `/proc/PID/stat`. */
export interface RootWatch {
  /**
   * Those of `roots` that are no longer the live process they were; stops holding any root not
   * passed. Pass the same array again (never changed in place) while the roots are the same.
   */
  exited(roots: readonly ProcessIdentity[]): ProcessIdentity[];
  close(): void;
}

/** A stat line is ~300 bytes (comm is at most 16); what does not fit is not read. */
const STAT_BYTES = 1024;
const CLOSE_PAREN = 0x29;

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
}

/**
 * A watch that opens each root's stat once and re-reads it with one pread: the open file names
 * the process, not the number, so after the root is reaped the read fails (ESRCH) even when the
 * pid was handed to another process. Ten looks a second at ten sessions were an idle host's
 * largest cost as open/read/close each (the main thread's only /proc reads).
 */
export function createRootWatch(): RootWatch {
  const held = new Map<string, number>();
  const buffer = Buffer.alloc(STAT_BYTES);
  let lastRoots: readonly ProcessIdentity[] | null = null;
  let keys: string[] = [];

  /** Bytes read through `fd`, or -1 once the process is gone. */
  function readHeld(fd: number): number {
    try {
      return readSync(fd, buffer, 0, STAT_BYTES, 0);
    } catch {
      return -1;
    }
  }

  function isZombie(length: number): boolean {
    const close = buffer.lastIndexOf(CLOSE_PAREN, length - 1);
    const state = close < 0 ? 0 : (buffer[close + 2] ?? 0);
    return state === 0x5a || state === 0x58; // 'Z', 'X'
  }

  /** Opens `root`'s stat when its pid still holds it alive; null when it exited. */
  function openRoot(root: ProcessIdentity): number | null {
    let fd: number;
    try {
      fd = openSync(`/proc/${root.pid}/stat`, 'r');
    } catch {
      return null;
    }
    const length = readHeld(fd);
    const fields = length > 0 ? parseStatBytes(buffer, length) : null;
    if (fields === null || fields.startTicks !== root.startTime || isZombie(length)) {
      closeQuietly(fd);
      return null;
    }
    return fd;
  }

  return {
    exited(roots) {
      if (process.platform !== 'linux') return [];
      // The same list as last time (a poller passes one list per tick): its keys, and the held
      // set, are as they were, so a look allocates nothing but its answer.
      if (roots !== lastRoots) {
        lastRoots = roots;
        keys = roots.map(identityKey);
        const wanted = new Set(keys);
        for (const [key, fd] of held) {
          if (wanted.has(key)) continue;
          closeQuietly(fd);
          held.delete(key);
        }
      }
      const exited: ProcessIdentity[] = [];
      roots.forEach((root, index) => {
        const key = keys[index] as string;
        const known = held.get(key);
        const fd = known ?? openRoot(root);
        if (fd === null) {
          exited.push(root);
          return;
        }
        if (known === undefined) {
          held.set(key, fd);
          return; // just confirmed alive by openRoot's read
        }
        const length = readHeld(fd);
        if (length > 0 && !isZombie(length)) return;
        closeQuietly(fd);
        held.delete(key);
        exited.push(root);
      });
      return exited;
    },
    close() {
      for (const fd of held.values()) closeQuietly(fd);
      held.clear();
      lastRoots = null;
    },
  };
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
  const watch = createRootWatch();
  try {
    for (let left = delayMs; left > 0; left = dueAt - performance.now()) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(ROOT_CHECK_INTERVAL_MS, left)));
      if (stopping()) return false;
      if (watch.exited(roots()).length > 0) return true;
    }
    return false;
  } finally {
    watch.close();
  }
}

/** The wait between a watcher's ticks, kept across ticks (see `createTickWaiter`). */
export interface TickWaiter {
  /**
   * Waits `delayMs`, or less: true once one of `roots` exited (or one did since the last wait),
   * false when the delay passed or `interrupt()` was called.
   */
  wait(roots: readonly ProcessIdentity[], delayMs: number): Promise<boolean>;
  /** Ends the current wait (false) and every later one at once: the caller is stopping. */
  interrupt(): void;
  close(): void;
}

/**
 * `waitForTickOrRootExit` for a loop of ticks (`treewarden watch`): where pidfds exist the kernel
 * tells a root's exit (exit-watch.ts), so a wait is one timer and nothing else, where the look
 * woke four times a second to read every root's stat; elsewhere it is the look.
 */
export function createTickWaiter(): TickWaiter {
  let interrupted = false;
  // An exit told while no wait ran (during a tick): the next wait returns at once.
  let toldMeanwhile = false;
  let settle: ((exited: boolean) => void) | null = null;
  // Its thread failed: it tells nothing more, so the look takes over (as the host's poller does).
  let exitsFailed = false;
  const exits = createExitWatch(
    () => {
      if (settle !== null) settle(true);
      else toldMeanwhile = true;
    },
    () => {
      exitsFailed = true;
    },
  );
  return {
    async wait(roots, delayMs) {
      if (exits === null || exitsFailed)
        return waitForTickOrRootExit(
          () => roots,
          delayMs,
          () => interrupted,
        );
      exits.watch(roots);
      if (interrupted) return false;
      if (toldMeanwhile) {
        toldMeanwhile = false;
        return true;
      }
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => done(false), delayMs);
        const done = (exited: boolean) => {
          clearTimeout(timer);
          settle = null;
          resolve(exited);
        };
        settle = done;
      });
    },
    interrupt() {
      interrupted = true;
      settle?.(false);
    },
    close() {
      settle?.(false);
      exits?.close();
    },
  };
}
