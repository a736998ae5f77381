/**
 * The System view's spin and growth rules (one home: @treewarden/protocol/usage-window, which the
 * renderer's flags use too), worded for a session member's alert; plus the kernel's lifetime
 * account, so a process that has spun since it started is seen at once (the one-shot commands
 * have no history), and idleness for stale subagents. Each returns the evidence in words, or null.
 */
import { memoryGrowthOver, spinLowest, windowAnchor } from '@treewarden/protocol/usage-window';
import type { ProcessEntry } from '../../table/types.js';
import type { UsageSample } from './samples.js';

const BYTES_PER_MIB = 1024 * 1024;
/** An idle window may hold this share of a core (a runtime's housekeeping ticks), no more. */
export const IDLE_CPU_SHARE = 0.001;

function formatMs(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
}

function formatMib(bytes: number): string {
  return `${(bytes / BYTES_PER_MIB).toFixed(0)} MiB`;
}

/** Every interval of a window of `cpuMs` measured at or above `percent` (the anchor rule: usage-window.ts). */
export function cpuSpin(samples: readonly UsageSample[], percent: number, cpuMs: number): string | null {
  const lowest = spinLowest(samples, percent, cpuMs);
  return lowest === null ? null : `CPU at or above ${percent} % for ${formatMs(cpuMs)} (lowest ${lowest.toFixed(0)} %)`;
}

/** Its whole life, at least `cpuMs` long, averaged at or above `percent` of a core (the kernel's count). */
export function lifetimeSpin(entry: ProcessEntry, now: number, percent: number, cpuMs: number): string | null {
  const age = now - entry.startedAtMs;
  if (entry.startedAtMs <= 0 || age < cpuMs) return null;
  const average = (entry.cpuTimeMs / age) * 100;
  if (average < percent) return null;
  return `CPU averaged ${average.toFixed(0)} % over its ${formatMs(age)} of life (at least ${percent} % for ${formatMs(cpuMs)})`;
}

/** Memory rising at least `mibPerMinute` over a window of `windowMs`, still rising at its end, in most steps. */
export function memoryGrowth(samples: readonly UsageSample[], mibPerMinute: number, windowMs: number): string | null {
  const growth = memoryGrowthOver(samples, mibPerMinute, windowMs);
  if (growth === null) return null;
  return `memory grew ${formatMib(growth.fromBytes)} → ${formatMib(growth.toBytes)} in ${formatMs(growth.spanMs)} (${growth.mibPerMinute.toFixed(0)} MiB/min, at least ${mibPerMinute})`;
}

/** No CPU used over a window that spans `idleMs` (measured, not assumed: the history must reach back). */
export function idleFor(samples: readonly UsageSample[], idleMs: number): string | null {
  const anchor = windowAnchor(samples, idleMs);
  if (anchor < 0 || anchor === samples.length - 1) return null;
  const first = samples[anchor] as UsageSample;
  const last = samples.at(-1) as UsageSample;
  const used = last.cpuTimeMs - first.cpuTimeMs;
  return used <= (last.atMs - first.atMs) * IDLE_CPU_SHARE ? `no CPU used for ${formatMs(idleMs)}` : null;
}
