/** Polling with a deadline: tests never sleep a fixed time and assume a process is dead. */

export const DEFAULT_WAIT_TIMEOUT_MS = 10_000;
export const DEFAULT_WAIT_INTERVAL_MS = 25;

export interface WaitForOptions {
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
  /** Named in the timeout error so a failing test says what it was waiting for. */
  readonly description?: string;
}

/**
 * Resolves with the first truthy value `predicate` returns; rejects once `timeoutMs` has passed.
 * A predicate that throws is treated as "not yet" (e.g. a report file that is not written yet).
 */
export async function waitFor<T>(
  predicate: () => T | Promise<T>,
  options: WaitForOptions = {},
): Promise<NonNullable<T>> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  const intervalMs = options.intervalMs ?? DEFAULT_WAIT_INTERVAL_MS;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await predicate();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const what = options.description ?? 'condition';
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`waitFor timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await sleep(intervalMs);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
