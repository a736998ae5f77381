/**
 * Worker threads that make native calls through koffi, and how they are stopped.
 *
 * koffi aborts the whole process when a thread is stopped from outside while it defines a
 * binding (loading its addon, `koffi.load`, `func`, `struct`): its N-API calls fail once the
 * thread is being terminated, and the error it then throws cannot be thrown, which node-addon-api
 * answers with "FATAL ERROR: Error::ThrowAsJavaScriptException napi_throw" and SIGABRT. Both
 * `worker.terminate()` and the process's exit stop threads that way. Here a worker terminated 60 ms
 * after its start aborted the process 1 time in 5; under two busy loops `serve` died so on SIGTERM.
 * Calls to bindings already made are not affected (10 × 5 terminations mid-call: none aborted).
 *
 * So such a thread is never stopped from outside: it is asked to end (`end`), which it reads
 * between tasks, never in the middle of a definition, and the process exits only after
 * `endNativeThreads` has seen them all end. The registry lives on `globalThis` because the CLI's
 * bundles may each carry a copy of this module.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';

/** How long `endNativeThreads` waits for the threads it asked to end (a read in flight ends first). */
export const NATIVE_THREAD_END_MS = 5_000;

interface NativeThread {
  /** Asks the thread to end on its own (a message it reads between tasks). */
  readonly end: () => void;
  readonly exited: Promise<void>;
}

const REGISTRY = Symbol.for('treewarden.native-threads');

function registry(): Set<NativeThread> {
  const holder = globalThis as { [REGISTRY]?: Set<NativeThread> };
  holder[REGISTRY] ??= new Set();
  return holder[REGISTRY];
}

/**
 * Registers a started worker that defines koffi bindings, with the way to ask it to end.
 * Resolves when the thread has exited (for whatever reason).
 */
export function trackNativeThread(worker: Worker, end: () => void): Promise<void> {
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const thread: NativeThread = { end, exited };
  registry().add(thread);
  void exited.then(() => registry().delete(thread));
  return exited;
}

/**
 * Whether the thread exited within `timeoutMs`. The timer holds the process open meanwhile: the
 * threads are unref'd, and a process whose loop ran dry would end in the middle of the wait.
 */
export async function exitedWithin(exited: Promise<void>, timeoutMs: number): Promise<boolean> {
  const timer = new AbortController();
  const outcome = await Promise.race([
    exited.then(() => true),
    delay(timeoutMs, false, { signal: timer.signal }).catch(() => false),
  ]);
  timer.abort();
  return outcome;
}

/**
 * Asks every registered thread to end and waits (bounded) until they have: call it before the
 * process exits. Threads that do not end in time are left to the exit (each was asked; one stuck
 * in a read is not in a definition).
 */
export async function endNativeThreads(timeoutMs: number = NATIVE_THREAD_END_MS): Promise<void> {
  const threads = [...registry()];
  if (threads.length === 0) return;
  for (const thread of threads) thread.end();
  await exitedWithin(
    Promise.all(threads.map((thread) => thread.exited)).then(() => undefined),
    timeoutMs,
  );
}

/** How many registered threads have not exited yet (for tests and diagnostics). */
export function liveNativeThreads(): number {
  return registry().size;
}
