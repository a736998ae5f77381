import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { DeadlineError, pollUntil, withDeadline } from '../../src/runtime/wait.js';

/** Short bounds are fine here: the outcome does not depend on how fast the machine is. */
const SHORT_DEADLINE_MS = 50;
const INTERVAL_MS = 5;

describe('pollUntil (engine)', () => {
  it('resolves with the first truthy value the probe returns', async () => {
    let calls = 0;
    const value = await pollUntil(
      () => {
        calls += 1;
        return calls >= 3 ? { calls } : null;
      },
      { deadlineMs: 60_000, intervalMs: INTERVAL_MS },
    );
    expect(value).toEqual({ calls: 3 });
  });

  it('returns null once the deadline passed, after probing at least twice', async () => {
    let calls = 0;
    const value = await pollUntil(
      () => {
        calls += 1;
        return false;
      },
      { deadlineMs: SHORT_DEADLINE_MS, intervalMs: INTERVAL_MS },
    );
    expect(value).toBeNull();
    expect(calls).toBeGreaterThanOrEqual(2);
  });

  it('returns null when its signal aborts, long before the deadline', async () => {
    const abort = new AbortController();
    abort.abort();
    expect(
      await pollUntil(() => false, { deadlineMs: 60_000, intervalMs: INTERVAL_MS, signal: abort.signal }),
    ).toBeNull();
  });
});

describe('withDeadline', () => {
  it('resolves as the promise does', async () => {
    expect(await withDeadline(Promise.resolve(7), 60_000, 'seven')).toBe(7);
  });

  it("passes the promise's own rejection through", async () => {
    await expect(withDeadline(Promise.reject(new Error('boom')), 60_000, 'boom')).rejects.toThrow('boom');
  });

  it('rejects with a DeadlineError naming what did not finish', async () => {
    const never = delay(60_000, undefined, { ref: false });
    const result = withDeadline(never, SHORT_DEADLINE_MS, 'the stuck thing');
    await expect(result).rejects.toBeInstanceOf(DeadlineError);
    await expect(result).rejects.toThrow(`the stuck thing did not finish within ${SHORT_DEADLINE_MS} ms`);
  });
});
