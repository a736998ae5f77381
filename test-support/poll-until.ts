/**
 * The tests' one wait: poll against a deadline, never sleep a fixed time and assume a process is
 * dead. (Production code has its own `pollUntil` in the engine, which returns null instead.)
 * A deliberate observation window ("the heartbeat stays quiet for 1 s") uses
 * `setTimeout` from `node:timers/promises` with a named constant.
 */
import { setTimeout as delay } from 'node:timers/promises';

export const DEFAULT_POLL_DEADLINE_MS = 10_000;
export const DEFAULT_POLL_INTERVAL_MS = 25;

export interface PollUntilOptions {
  /**
   * Named in the timeout error so a failing test says what it was waiting for; a function is asked
   * only then, so it can add what was seen by that time (a child's output so far).
   */
  readonly description: string | (() => string);
  /** Give up this many milliseconds from now (DEFAULT_POLL_DEADLINE_MS). */
  readonly deadlineMs?: number;
  readonly intervalMs?: number;
}

/**
 * Resolves with the first truthy value `probe` returns; rejects once `deadlineMs` has passed.
 * A probe that throws is treated as "not yet" (e.g. a report file that is not written yet), and
 * so is an empty array: it is truthy, and a wait for what a tick found returned at once with
 * nothing found (a test then failed on `undefined` far from the cause).
 */
export async function pollUntil<T>(probe: () => T | Promise<T>, options: PollUntilOptions): Promise<NonNullable<T>> {
  const deadlineMs = options.deadlineMs ?? DEFAULT_POLL_DEADLINE_MS;
  const intervalMs = options.intervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const deadline = Date.now() + deadlineMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value && !(Array.isArray(value) && value.length === 0)) return value as NonNullable<T>;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      const description = typeof options.description === 'function' ? options.description() : options.description;
      throw new Error(`pollUntil timed out after ${deadlineMs} ms waiting for ${description}${cause}`);
    }
    await delay(intervalMs);
  }
}
