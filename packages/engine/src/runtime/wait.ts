/**
 * The engine's only ways to wait: poll a probe against a deadline, and bound a promise. Every
 * caller passes its own named bound; nothing here sleeps a fixed time and assumes the world
 * changed. (Tests have their own `pollUntil` in test-support, which throws on its deadline.)
 */
import { setTimeout as delay } from 'node:timers/promises';

export interface PollOptions {
  /** Give up this many milliseconds from now. */
  readonly deadlineMs: number;
  /** Time between probes. */
  readonly intervalMs: number;
  /** Stops polling early (the result is then null too). */
  readonly signal?: AbortSignal;
}

/**
 * Resolves with the first truthy value `probe` returns, or null once `deadlineMs` has passed or
 * `signal` aborted; the probe always runs at least once, and once more at the deadline.
 */
export async function pollUntil<T>(probe: () => T | Promise<T>, options: PollOptions): Promise<NonNullable<T> | null> {
  const deadline = Date.now() + options.deadlineMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() >= deadline || options.signal?.aborted) return null;
    await delay(Math.min(options.intervalMs, Math.max(0, deadline - Date.now())));
  }
}

/** The error `withDeadline` rejects with: it names what did not finish and the bound. */
export class DeadlineError extends Error {
  constructor(description: string, deadlineMs: number) {
    super(`${description} did not finish within ${deadlineMs} ms`);
    this.name = 'DeadlineError';
  }
}

/** Resolves as `promise` does, or rejects with a DeadlineError after `deadlineMs`. */
export async function withDeadline<T>(promise: Promise<T>, deadlineMs: number, description: string): Promise<T> {
  const timer = new AbortController();
  const expired = delay(deadlineMs, undefined, { signal: timer.signal }).then(() => {
    throw new DeadlineError(description, deadlineMs);
  });
  // The timer is cancelled once the promise settles; its AbortError is expected, not a failure.
  expired.catch(() => {});
  try {
    return await Promise.race([promise, expired]);
  } finally {
    timer.abort();
  }
}
