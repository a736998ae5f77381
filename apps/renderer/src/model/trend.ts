/**
 * What a curve says, in words: its trend (for aria-labels and tooltips), and the system view's
 * flags — a process that spins a core for minutes, or whose memory keeps growing. Flags are
 * advice only: nothing here ever leads to a signal.
 */
import { memoryGrowthOver, spinLowest } from '@treewarden/protocol';
import { formatBytes, formatDuration, formatPercent } from './format';
import type { Sample } from './history';

export type Trend = 'rising' | 'falling' | 'steady';

/** A change smaller than this share of the series' own scale is "steady", not a trend. */
const STEADY_SHARE = 0.1;
const MS_PER_MINUTE = 60_000;

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
 * "CPU 12.5 %, rising over the last 2 min 00 s" — what a screen reader hears for a sparkline. A
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

export function cpuSpinFlag(samples: readonly Sample[], settings: FlagSettings): Flag | null {
  // The window's intervals must all be measured at or above the bar (the anchor rule, usage-window.ts).
  const lowest = spinLowest(samples, settings.cpuPercent, settings.cpuMinutes * MS_PER_MINUTE);
  if (lowest === null) return null;
  return {
    kind: 'cpu',
    reason: `CPU at or above ${settings.cpuPercent} % for ${settings.cpuMinutes} min (lowest ${formatPercent(lowest)} %)`,
  };
}

export function memoryGrowthFlag(samples: readonly Sample[], settings: FlagSettings): Flag | null {
  const growth = memoryGrowthOver(samples, settings.memoryMibPerMinute, settings.memoryMinutes * MS_PER_MINUTE);
  if (growth === null) return null;
  return {
    kind: 'memory',
    reason: `Memory grew ${formatBytes(growth.fromBytes)} → ${formatBytes(growth.toBytes)} in ${Math.round(growth.spanMs / MS_PER_MINUTE)} min (${growth.mibPerMinute.toFixed(0)} MiB/min, at least ${settings.memoryMibPerMinute})`,
  };
}

/** Every flag a process's history raises (empty: nothing to say). */
export function flagsOf(samples: readonly Sample[], settings: FlagSettings): Flag[] {
  return [cpuSpinFlag(samples, settings), memoryGrowthFlag(samples, settings)].filter(
    (flag): flag is Flag => flag !== null,
  );
}
