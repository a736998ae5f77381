/**
 * The shared clock behind useNow (hooks/use-now): one 1 Hz clock for every countdown and age
 * column, so a hundred rows do not each run their own interval. It runs only while subscribed.
 *
 * The host's data moves it too (`tickWithData`, called by the transport as a poll's events are
 * applied): the ages and countdowns then change in the same React render, layout and paint as the
 * poll's rows instead of in one of their own a fraction of a second apart — at a 1 s refresh that
 * was every second frame of an idle window. After such a tick the clock's own next tick waits
 * CLOCK_DATA_GRACE_MS, so a poll that comes a little later than a second (its read takes time)
 * still brings the tick; with a slower refresh, or none, the clock ticks on by itself each second.
 */
export const CLOCK_TICK_MS = 1000;
/** How long after a data tick the clock waits before ticking by itself (then every CLOCK_TICK_MS). */
export const CLOCK_DATA_GRACE_MS = 1500;

const listeners = new Set<() => void>();
let now = Date.now();
let timer: ReturnType<typeof setTimeout> | null = null;

function tick(): void {
  now = Date.now();
  for (const listener of listeners) listener();
}

function arm(delayMs: number): void {
  if (timer) clearTimeout(timer);
  timer = setTimeout(() => {
    timer = null;
    tick();
    if (listeners.size > 0) arm(CLOCK_TICK_MS);
  }, delayMs);
}

export function subscribeClock(listener: () => void): () => void {
  listeners.add(listener);
  if (!timer) {
    now = Date.now();
    arm(CLOCK_TICK_MS);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer) {
      clearTimeout(timer);
      timer = null;
    }
  };
}

/** The host's data arrived: tick now (in the caller's task, so React renders both at once). */
export function tickWithData(): void {
  if (listeners.size === 0) return;
  tick();
  arm(CLOCK_DATA_GRACE_MS);
}

/** The clock's time as of its last tick. */
export function clockNow(): number {
  return now;
}
