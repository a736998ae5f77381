/**
 * The spin and growth rules over a process's usage samples, in one place for both sides of the
 * wire: the engine's session alerts (runaway-job, stale-subagents) judge session members with
 * them, and the renderer's System view flags every process with them. Import-free, like
 * limit-text.ts, so the engine loads it without zod and the renderer bundles it as is. Each side
 * words the evidence its own way; the judgement itself is here.
 *
 * A window of `ms` is measured throughout only when the samples' intervals cover all of it. Each
 * sample's `cpuPercent` measures the time since the sample before it, so the window's intervals
 * start at its **anchor**: the newest sample at or before `newest.atMs - ms`. The anchor's own
 * value measures time before the window and never counts; every sample after it does. Starting
 * from the first sample inside the window instead would cover less than `ms` whenever samples do
 * not fall on the window's edge (a spin claimed "for 3 min" after 2 min 55 s), and counting the
 * anchor's value would ask for more history than the window.
 */

export interface WindowSample {
  readonly atMs: number;
  /** Percent of one core since the previous sample; null = unknown (never evidence of a spin). */
  readonly cpuPercent: number | null;
  readonly memoryBytes: number;
}

/** "Keeps growing": at least this share of the window's steps do not go down. */
export const GROWTH_STEP_SHARE = 0.7;

const MS_PER_MINUTE = 60_000;
const BYTES_PER_MIB = 1024 * 1024;

/**
 * Index of the window's anchor (the newest sample at or before `newest.atMs - ms`), or -1 when the
 * history does not reach back that far. Binary search: samples are in time order, and the rules
 * run for every process at every pass.
 */
export function windowAnchor(samples: readonly WindowSample[], ms: number): number {
  const newest = samples.at(-1);
  const oldest = samples[0];
  if (newest === undefined || oldest === undefined) return -1;
  const from = newest.atMs - ms;
  if (oldest.atMs > from) return -1;
  let low = 0;
  let high = samples.length - 1;
  // The last index whose time is ≤ from: samples[low] ≤ from holds throughout.
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((samples[middle] as WindowSample).atMs <= from) low = middle;
    else high = middle - 1;
  }
  return low;
}

/**
 * The lowest CPU % over a window of `ms` measured at or above `percent` in every interval, or null
 * (not measured throughout, an unknown interval, or one below the bar).
 */
export function spinLowest(samples: readonly WindowSample[], percent: number, ms: number): number | null {
  const anchor = windowAnchor(samples, ms);
  if (anchor < 0 || anchor === samples.length - 1) return null;
  let lowest = Number.POSITIVE_INFINITY;
  for (let index = samples.length - 1; index > anchor; index -= 1) {
    const value = (samples[index] as WindowSample).cpuPercent;
    if (value === null || value < percent) return null;
    if (value < lowest) lowest = value;
  }
  return lowest;
}

export interface MemoryGrowth {
  readonly fromBytes: number;
  readonly toBytes: number;
  readonly spanMs: number;
  readonly mibPerMinute: number;
}

function mibPerMinuteBetween(from: WindowSample, to: WindowSample): number {
  const minutes = (to.atMs - from.atMs) / MS_PER_MINUTE;
  return minutes > 0 ? (to.memoryBytes - from.memoryBytes) / BYTES_PER_MIB / minutes : 0;
}

/**
 * Memory rising at least `mibPerMinute` over a window of `ms`: from the anchor to the newest
 * sample, still rising at the end (one jump followed by a plateau is not "keeps growing"), and
 * rising in most steps (a sawtooth is not either). Null otherwise.
 */
export function memoryGrowthOver(
  samples: readonly WindowSample[],
  mibPerMinute: number,
  ms: number,
): MemoryGrowth | null {
  const anchor = windowAnchor(samples, ms);
  // Three samples at least: a rate, and a middle to tell a trend from one jump.
  if (anchor < 0 || samples.length - anchor < 3) return null;
  const first = samples[anchor] as WindowSample;
  const last = samples.at(-1) as WindowSample;
  const rate = mibPerMinuteBetween(first, last);
  if (last.atMs <= first.atMs || rate < mibPerMinute) return null;
  const middle = samples[anchor + Math.floor((samples.length - 1 - anchor) / 2)] as WindowSample;
  if (mibPerMinuteBetween(middle, last) < mibPerMinute / 2) return null;
  let rising = 0;
  for (let index = anchor + 1; index < samples.length; index += 1)
    if ((samples[index] as WindowSample).memoryBytes >= (samples[index - 1] as WindowSample).memoryBytes) rising += 1;
  if (rising / (samples.length - 1 - anchor) < GROWTH_STEP_SHARE) return null;
  return {
    fromBytes: first.memoryBytes,
    toBytes: last.memoryBytes,
    spanMs: last.atMs - first.atMs,
    mibPerMinute: rate,
  };
}
