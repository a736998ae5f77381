/**
 * What a curve says, in words: its trend (for aria-labels and tooltips), and the system view's
 * flags — a process that spins a core for minutes, or whose memory keeps growing. Flags are
 * advice only: nothing here ever leads to a signal.
 */
import { formatBytes, formatDuration, formatPercent } from './format';
import type { Sample } from './history';

export type Trend = 'rising' | 'falling' | 'steady';

/** A change smaller than this share of the series' own scale is "steady", not a trend. */
const STEADY_SHARE = 0.1;
const MS_PER_MINUTE = 60_000;
const BYTES_PER_MIB = 1024 * 1024;

/** Least-squares slope of values against their index (per step). */
function slopePerStep(values: readonly number[]): number {
  const n = values.length;
  if (n < 2) return 0;
  const meanX = (n - 1) / 2;
  const meanY = values.reduce((sum, value) => sum + value, 0) / n;
  let numerator = 0;
  let denominator = 0;
  values.forEach((value, index) => {
    numerator += (index - meanX) * (value - meanY);
    denominator += (index - meanX) ** 2;
  });
  return numerator / denominator;
}

/** Rising or falling when the fitted line moves by more than STEADY_SHARE of the peak over the series. */
export function trendOf(values: readonly number[]): Trend {
  if (values.length < 3) return 'steady';
  const scale = Math.max(...values.map(Math.abs));
  if (scale === 0) return 'steady';
  const change = slopePerStep(values) * (values.length - 1);
  if (Math.abs(change) <= STEADY_SHARE * scale) return 'steady';
  return change > 0 ? 'rising' : 'falling';
}

/**
 * "CPU 12.5 %, rising over the last 2m 00s" — what a screen reader hears for a sparkline. A
 * `final` curve (an ended session's, nothing of it alive) is not about now, and says so.
 */
export function describeSeries(
  what: 'CPU' | 'Memory',
  values: readonly (number | null)[],
  spanMs: number,
  final = false,
): string {
  const latest = values.at(-1);
  if (latest === undefined) return final ? `${what}: no samples before it ended` : `${what}: no samples yet`;
  // An unknown latest value (a process just seen) is said as unknown, never as 0.
  const shown =
    latest === null ? '— (not measured yet)' : what === 'CPU' ? `${formatPercent(latest)} %` : formatBytes(latest);
  const value = `${shown}${final ? ' at its end' : ''}`;
  const known = knownValues(values);
  if (known.length < 3) return `${what} ${value}, too few samples for a trend`;
  return `${what} ${value}, ${trendOf(known)} over ${final ? 'its' : 'the'} last ${formatDuration(spanMs)}`;
}

/** The measured values of a series, in order (unknown ones left out). */
export function knownValues(values: readonly (number | null)[]): number[] {
  return values.filter((value): value is number => value !== null);
}

export interface FlagSettings {
  /** A spin: CPU at or above this percent (100 = one core) … */
  cpuPercent: number;
  /** … in every sample of at least this many minutes. */
  cpuMinutes: number;
  /** A growth: memory rising at least this fast, MiB per minute … */
  memoryMibPerMinute: number;
  /** … over a window of this many minutes, rising in most steps. */
  memoryMinutes: number;
}

export interface Flag {
  kind: 'cpu' | 'memory';
  /** Why, in words, for the badge's tooltip. */
  reason: string;
}

/** "Keeps growing": at least this share of the steps in the window do not go down. */
export const GROWTH_STEP_SHARE = 0.7;

/** The samples of the last `minutes`, or null when the history does not reach that far back yet. */
function windowOf(samples: readonly Sample[], minutes: number): Sample[] | null {
  const last = samples.at(-1);
  if (last === undefined) return null;
  const from = last.atMs - minutes * MS_PER_MINUTE;
  const first = samples[0] as Sample;
  if (first.atMs > from) return null;
  return samples.filter((sample) => sample.atMs >= from);
}

export function cpuSpinFlag(samples: readonly Sample[], settings: FlagSettings): Flag | null {
  const window = windowOf(samples, settings.cpuMinutes);
  if (window === null || window.length < 2) return null;
  // An unknown sample is no evidence of a spin: only a window measured throughout can flag.
  const percents = window.map((sample) => sample.cpuPercent);
  if (!percents.every((percent) => percent !== null && percent >= settings.cpuPercent)) return null;
  const lowest = Math.min(...knownValues(percents));
  return {
    kind: 'cpu',
    reason: `CPU at or above ${settings.cpuPercent} % for ${settings.cpuMinutes} min (lowest ${formatPercent(lowest)} %)`,
  };
}

function growthPerMinute(from: Sample, to: Sample): number {
  const minutes = (to.atMs - from.atMs) / MS_PER_MINUTE;
  return minutes > 0 ? (to.memoryBytes - from.memoryBytes) / BYTES_PER_MIB / minutes : 0;
}

export function memoryGrowthFlag(samples: readonly Sample[], settings: FlagSettings): Flag | null {
  const window = windowOf(samples, settings.memoryMinutes);
  if (window === null || window.length < 3) return null;
  const first = window[0] as Sample;
  const last = window.at(-1) as Sample;
  const minutes = (last.atMs - first.atMs) / MS_PER_MINUTE;
  if (minutes <= 0) return null;
  const rate = growthPerMinute(first, last);
  if (rate < settings.memoryMibPerMinute) return null;
  // Still growing at the end: one jump followed by a plateau is not "keeps growing".
  const middle = window[Math.floor((window.length - 1) / 2)] as Sample;
  if (growthPerMinute(middle, last) < settings.memoryMibPerMinute / 2) return null;
  let rising = 0;
  for (let i = 1; i < window.length; i += 1)
    if ((window[i] as Sample).memoryBytes >= (window[i - 1] as Sample).memoryBytes) rising += 1;
  if (rising / (window.length - 1) < GROWTH_STEP_SHARE) return null;
  return {
    kind: 'memory',
    reason: `Memory grew ${formatBytes(first.memoryBytes)} → ${formatBytes(last.memoryBytes)} in ${Math.round(minutes)} min (${rate.toFixed(0)} MiB/min, at least ${settings.memoryMibPerMinute})`,
  };
}

/** Every flag a process's history raises (empty: nothing to say). */
export function flagsOf(samples: readonly Sample[], settings: FlagSettings): Flag[] {
  return [cpuSpinFlag(samples, settings), memoryGrowthFlag(samples, settings)].filter(
    (flag): flag is Flag => flag !== null,
  );
}
