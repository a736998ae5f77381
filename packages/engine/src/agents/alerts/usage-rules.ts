/**
 * The System view's flags (apps/renderer/src/model/trend.ts: `cpuSpinFlag`, `memoryGrowthFlag`),
 * the same rules judged per session member here, where the renderer cannot be imported; plus the
 * kernel's lifetime account, so a process that has spun since it started is seen at once (the
 * one-shot commands have no history). Each returns the evidence in words, or null.
 */
import type { ProcessEntry } from '../../table/types.js';
import type { UsageSample } from './samples.js';

const MS_PER_MINUTE = 60_000;
const BYTES_PER_MIB = 1024 * 1024;
/** "Keeps growing": at least this share of the steps in the window do not go down (as the System view). */
export const GROWTH_STEP_SHARE = 0.7;
/** An idle window may hold this share of a core (a runtime's housekeeping ticks), no more. */
export const IDLE_CPU_SHARE = 0.001;

function formatMs(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
}

function formatMib(bytes: number): string {
  return `${(bytes / BYTES_PER_MIB).toFixed(0)} MiB`;
}

/**
 * Index of the first sample of the last `ms` (binary search: samples are in time order), or -1
 * when the history does not reach that far back yet. The rules walk the window in place, cheapest
 * test first: most members fail at the last sample, and a tick judges every member.
 */
export function windowStart(samples: readonly UsageSample[], ms: number): number {
  const last = samples.at(-1);
  const first = samples[0];
  if (last === undefined || first === undefined || first.atMs > last.atMs - ms) return -1;
  const from = last.atMs - ms;
  let low = 0;
  let high = samples.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((samples[middle] as UsageSample).atMs >= from) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** The samples of the last `ms`, or null when the history does not reach that far back yet. */
export function windowOf(samples: readonly UsageSample[], ms: number): UsageSample[] | null {
  const start = windowStart(samples, ms);
  return start < 0 ? null : samples.slice(start);
}

/** Every sample of a window that spans `cpuMs` measured at or above `percent` (an unknown one never counts). */
export function cpuSpin(samples: readonly UsageSample[], percent: number, cpuMs: number): string | null {
  const start = windowStart(samples, cpuMs);
  // Each sample measures the time since the one before it: the window's first sample measures time before it.
  if (start < 0 || samples.length - start < 2) return null;
  let lowest = Number.POSITIVE_INFINITY;
  for (let index = samples.length - 1; index > start; index -= 1) {
    const value = (samples[index] as UsageSample).cpuPercent;
    if (value === null || value < percent) return null;
    lowest = Math.min(lowest, value);
  }
  return `CPU at or above ${percent} % for ${formatMs(cpuMs)} (lowest ${lowest.toFixed(0)} %)`;
}

/** Its whole life, at least `cpuMs` long, averaged at or above `percent` of a core (the kernel's count). */
export function lifetimeSpin(entry: ProcessEntry, now: number, percent: number, cpuMs: number): string | null {
  const age = now - entry.startedAtMs;
  if (entry.startedAtMs <= 0 || age < cpuMs) return null;
  const average = (entry.cpuTimeMs / age) * 100;
  if (average < percent) return null;
  return `CPU averaged ${average.toFixed(0)} % over its ${formatMs(age)} of life (at least ${percent} % for ${formatMs(cpuMs)})`;
}

function growthPerMinute(from: UsageSample, to: UsageSample): number {
  const minutes = (to.atMs - from.atMs) / MS_PER_MINUTE;
  return minutes > 0 ? (to.memoryBytes - from.memoryBytes) / BYTES_PER_MIB / minutes : 0;
}

/** Memory rising at least `mibPerMinute` over a window of `windowMs`, still rising at its end, in most steps. */
export function memoryGrowth(samples: readonly UsageSample[], mibPerMinute: number, windowMs: number): string | null {
  const start = windowStart(samples, windowMs);
  if (start < 0 || samples.length - start < 3) return null;
  const first = samples[start] as UsageSample;
  const last = samples.at(-1) as UsageSample;
  const rate = growthPerMinute(first, last);
  if (last.atMs <= first.atMs || rate < mibPerMinute) return null;
  // Still growing at the end: one jump followed by a plateau is not "keeps growing".
  const middle = samples[start + Math.floor((samples.length - 1 - start) / 2)] as UsageSample;
  if (growthPerMinute(middle, last) < mibPerMinute / 2) return null;
  let rising = 0;
  for (let i = start + 1; i < samples.length; i += 1)
    if ((samples[i] as UsageSample).memoryBytes >= (samples[i - 1] as UsageSample).memoryBytes) rising += 1;
  if (rising / (samples.length - 1 - start) < GROWTH_STEP_SHARE) return null;
  return `memory grew ${formatMib(first.memoryBytes)} → ${formatMib(last.memoryBytes)} in ${formatMs(last.atMs - first.atMs)} (${rate.toFixed(0)} MiB/min, at least ${mibPerMinute})`;
}

/** No CPU used over a window that spans `idleMs` (measured, not assumed: the history must reach back). */
export function idleFor(samples: readonly UsageSample[], idleMs: number): string | null {
  const start = windowStart(samples, idleMs);
  if (start < 0 || samples.length - start < 2) return null;
  const first = samples[start] as UsageSample;
  const last = samples.at(-1) as UsageSample;
  const used = last.cpuTimeMs - first.cpuTimeMs;
  return used <= (last.atMs - first.atMs) * IDLE_CPU_SHARE ? `no CPU used for ${formatMs(idleMs)}` : null;
}
