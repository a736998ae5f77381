/**
 * Live sessions' roots watched for their exit by the kernel instead of by a timer (Linux, pidfd
 * through koffi). The timer look (root-watch.ts) woke the owner's thread four times a second per
 * observer and read every root's stat: with ten live sessions that was most of an idle exporter's
 * main-thread CPU (~0.17 % of a core here), all of it finding nothing. Here a thread of its own
 * sleeps in poll(2) on one pidfd per root (exit-watch-worker.ts) and wakes only when a root exits
 * or the roots change; the exit is told at once, where the look told it up to 250 ms later.
 *
 * `createExitWatch` yields null where pidfds or the FFI are missing; callers keep the timer look.
 * The thread never keeps the process alive (unref'd), and closing the watch ends it.
 */
import { existsSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { trackNativeThread } from '../../runtime/native-threads.js';
import { loadPidfd } from '../../runtime/pidfd.js';
import { identityKey, type ProcessIdentity } from '../../table/types.js';

export type ExitWatchMessage =
  | { readonly type: 'roots'; readonly roots: readonly { key: string; pid: number; startTime: string }[] }
  | { readonly type: 'close' };

export interface ExitWatch {
  /**
   * Watches exactly these roots from now on (the same set again is free). A root that already
   * exited, or whose pid now names another process, is told as exited at once.
   */
  watch(roots: readonly ProcessIdentity[]): void;
  close(): void;
}

interface KoffiLike {
  load(path: string): { func(signature: string): (...args: unknown[]) => number };
}

/** The watch thread's name in `top -H`, `ps -L` and /proc/PID/task/TID/comm (15 bytes at most). */
export const EXIT_WATCH_THREAD_NAME = 'tw-exit-watch';
const EFD_CLOEXEC = 0o2000000;
const EFD_NONBLOCK = 0o4000;
const ONE = Buffer.from([1, 0, 0, 0, 0, 0, 0, 0]);

function workerUrl(): URL {
  const sibling = new URL('./exit-watch-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(sibling))) return sibling;
  // Loaded from src/ (vitest): the thread itself must be compiled JavaScript, found in dist/.
  return new URL('../../../dist/agents/sessions/exit-watch-worker.js', import.meta.url);
}

let eventfdOf: ((initval: number, flags: number) => number) | null | undefined;

/** libc's eventfd through koffi; null where it cannot be had. */
function loadEventfd(): ((initval: number, flags: number) => number) | null {
  if (eventfdOf === undefined) {
    try {
      const koffi = createRequire(import.meta.url)('koffi') as KoffiLike;
      eventfdOf = koffi.load('libc.so.6').func('int eventfd(unsigned int, int)') as (
        initval: number,
        flags: number,
      ) => number;
    } catch {
      eventfdOf = null;
    }
  }
  return eventfdOf ?? null;
}

/** Whether this process can watch exits by pidfd (Linux ≥ 5.3 with koffi). */
export function exitWatchAvailable(): boolean {
  return process.platform === 'linux' && loadPidfd() !== null && loadEventfd() !== null;
}

/**
 * An exit watch calling `onExit` (on this thread, after the exit) with the roots that exited;
 * null when unavailable. Each root is told once while it stays watched; dropped and watched again, it is checked again.
 * `onFailure`: its thread failed or ended unasked (it tells nothing more; the caller falls back).
 */
export function createExitWatch(
  onExit: (exited: ProcessIdentity[]) => void,
  onFailure: () => void = () => undefined,
): ExitWatch | null {
  if (!exitWatchAvailable()) return null;
  const eventfd = loadEventfd() as (initval: number, flags: number) => number;
  let worker: Worker | null = null;
  let wakeFd = -1;
  let watchedKeys = '';
  // The identities last asked for, by key (what an exited key is told as).
  let byKey = new Map<string, ProcessIdentity>();
  // Keys already told while watched throughout. The thread can tell a key twice: a set of roots
  // still in flight to it when the root exited makes it open the (zombie) root again, which polls
  // readable at once. A CI run saw that double telling. An exited identity never lives again.
  let told = new Set<string>();

  function wake(fd: number = wakeFd): void {
    try {
      writeSync(fd, ONE);
    } catch {
      // The thread is gone (closed): nothing to wake.
    }
  }

  function start(): Worker | null {
    wakeFd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wakeFd < 0) return null;
    const started = new Worker(workerUrl(), { workerData: { wakeFd, threadName: EXIT_WATCH_THREAD_NAME } });
    started.unref();
    // Its bindings are defined as it starts: the process exits only after it ended (native-threads.ts).
    // Its eventfd is closed once it exited, and the number may then name another file.
    const startedFd = wakeFd;
    let threadEnded = false;
    started.once('exit', () => {
      threadEnded = true;
    });
    trackNativeThread(started, () => {
      if (threadEnded) return;
      started.postMessage({ type: 'close' } satisfies ExitWatchMessage);
      wake(startedFd);
    });
    started.on('message', (keys: string[]) => {
      const exited = keys.filter((key) => !told.has(key)).flatMap((key) => byKey.get(key) ?? []);
      for (const root of exited) told.add(identityKey(root));
      if (exited.length > 0) onExit(exited);
    });
    // A thread that failed (its FFI, say) tells nothing more: the caller looks by timer instead.
    let failed = false;
    const fail = () => {
      if (failed || worker !== started) return;
      failed = true;
      worker = null;
      onFailure();
    };
    started.on('error', fail);
    started.on('exit', fail);
    return started;
  }

  return {
    watch(roots) {
      const keys = roots.map(identityKey);
      const joined = [...keys].sort().join(' ');
      if (joined === watchedKeys) return;
      watchedKeys = joined;
      byKey = new Map(roots.map((root, index) => [keys[index] as string, root]));
      // A key dropped and watched again later is checked again; one watched throughout is not.
      told = new Set(keys.filter((key) => told.has(key)));
      if (worker === null) {
        if (roots.length === 0) return;
        worker = start();
        if (worker === null) return;
      }
      const message: ExitWatchMessage = {
        type: 'roots',
        roots: roots.map((root, index) => ({ key: keys[index] as string, pid: root.pid, startTime: root.startTime })),
      };
      worker.postMessage(message);
      wake();
    },
    close() {
      if (worker === null) return;
      worker.postMessage({ type: 'close' } satisfies ExitWatchMessage);
      wake();
      const closing = worker;
      const fd = wakeFd;
      worker = null;
      wakeFd = -1;
      watchedKeys = '';
      byKey = new Map();
      told = new Set();
      // The thread returns from its poll and ends; its eventfd is closed once it has.
      closing.once('exit', () => loadPidfd()?.close(fd));
    },
  };
}
