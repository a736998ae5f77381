/** One render per poll: a poll's events are applied together, and the shared clock ticks with them. */
import type { HostEvent } from '@treewarden/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CLOCK_DATA_GRACE_MS, CLOCK_TICK_MS, clockNow, subscribeClock, tickWithData } from '../src/store/clock';
import { createEventBatcher, SNAPSHOT_DIFF_WAIT_MS } from '../src/transport/connect';

const snapshotEvent = { type: 'snapshot' } as unknown as HostEvent;
const diffEvent = { type: 'systemDiff', full: false, upserts: [], removed: [] } as unknown as HostEvent;

describe('a poll is applied in one task', () => {
  /** A schedule the test runs by hand: each flush with its delay, and whether it was cancelled. */
  function manualSchedule() {
    const flushes: { run: () => void; delayMs: number; cancelled: boolean }[] = [];
    const schedule = (run: () => void, delayMs: number) => {
      const entry = {
        run: () => {
          entry.cancelled = true; // ran: no longer pending
          run();
        },
        delayMs,
        cancelled: false,
      };
      flushes.push(entry);
      return () => {
        entry.cancelled = true;
      };
    };
    const live = () => flushes.filter((entry) => !entry.cancelled);
    return { flushes, schedule, live };
  }

  it('applies events that arrive before the next turn together, in order, and each once', () => {
    const { flushes, schedule } = manualSchedule();
    const applied: (readonly HostEvent[])[] = [];
    const batch = createEventBatcher((events) => applied.push(events), schedule);
    batch.push(snapshotEvent);
    batch.push(diffEvent);
    expect(flushes).toHaveLength(1); // one turn scheduled for both
    expect(flushes[0]?.delayMs).toBe(0); // nothing watched: no wait for a diff
    flushes[0]?.run();
    expect(applied).toEqual([[snapshotEvent, diffEvent]]);
    batch.push(snapshotEvent);
    expect(flushes).toHaveLength(2);
    batch.cancel();
    flushes[1]?.run();
    expect(applied).toHaveLength(1); // nothing is applied after a disconnect
  });

  it('holds a snapshot for the diff that follows it while the system is watched, and no longer', () => {
    const { schedule, live } = manualSchedule();
    const applied: (readonly HostEvent[])[] = [];
    const batch = createEventBatcher(
      (events) => applied.push(events),
      schedule,
      () => true,
    );
    // The two messages of a poll arrive in separate tasks: the snapshot waits (bounded) for the diff.
    batch.push(snapshotEvent);
    expect(live().map((entry) => entry.delayMs)).toEqual([SNAPSHOT_DIFF_WAIT_MS]);
    batch.push(diffEvent);
    // The diff came: the wait gives way to the next turn, and both are applied in one batch.
    expect(live().map((entry) => entry.delayMs)).toEqual([0]);
    live()[0]?.run();
    expect(applied).toEqual([[snapshotEvent, diffEvent]]);
    // A snapshot whose diff never comes (the host not watching yet) is applied at the bound.
    batch.push(snapshotEvent);
    expect(live().map((entry) => entry.delayMs)).toEqual([SNAPSHOT_DIFF_WAIT_MS]);
    live()[0]?.run();
    expect(applied).toEqual([[snapshotEvent, diffEvent], [snapshotEvent]]);
    expect(SNAPSHOT_DIFF_WAIT_MS).toBeLessThanOrEqual(100); // a change still shows within its second
  });
});

describe('the shared clock ticks with the data', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(1_000_000);
  });
  afterEach(() => vi.useRealTimers());

  it('ticks at once with a poll, then waits past the next poll before ticking by itself', () => {
    const ticks: number[] = [];
    const unsubscribe = subscribeClock(() => ticks.push(clockNow()));
    try {
      vi.advanceTimersByTime(400);
      tickWithData();
      expect(ticks).toEqual([1_000_400]); // in the caller's task, beside the poll's own update
      // A poll 1.1 s later (a read takes time) brings the next tick: no tick of its own between.
      vi.advanceTimersByTime(1_100);
      expect(ticks).toHaveLength(1);
      tickWithData();
      expect(ticks).toHaveLength(2);
      // Without data the clock goes on by itself: after the grace, then every second.
      vi.advanceTimersByTime(CLOCK_DATA_GRACE_MS);
      expect(ticks).toHaveLength(3);
      vi.advanceTimersByTime(CLOCK_TICK_MS);
      expect(ticks).toHaveLength(4);
    } finally {
      unsubscribe();
    }
  });

  it('does nothing without a subscriber', () => {
    const before = clockNow();
    vi.advanceTimersByTime(5_000);
    tickWithData();
    expect(clockNow()).toBe(before);
  });
});
