/**
 * Start times in words a person can check against the table. Linux identities carry the start as
 * clock ticks since boot; with the boot time known that is a wall-clock moment, printed first,
 * with the tick value kept in parentheses because the ticks are the identity that is compared.
 */
import { existsSync } from 'node:fs';
import { bootTime, clockTicks } from '../table/linux-stat.js';

/** How clock ticks since boot become wall-clock time; null where start times are not ticks. */
export interface StartClock {
  readonly bootTimeMs: number;
  readonly ticksPerSecond: number;
}

let systemClock: StartClock | null | undefined;

/** This machine's clock (Linux, boot time readable), asked once; null elsewhere. */
export function systemStartClock(): StartClock | null {
  if (systemClock === undefined) {
    const bootTimeMs = process.platform === 'linux' && existsSync('/proc/stat') ? bootTime() : 0;
    systemClock = bootTimeMs > 0 ? { bootTimeMs, ticksPerSecond: clockTicks() } : null;
  }
  return systemClock;
}

/** "2026-11-30T20:31:02.120Z (123456)" when the start is ticks and a clock is known, else the start as is. */
export function describeStart(startTime: string, clock: StartClock | null): string {
  if (clock === null || !/^\d+$/.test(startTime) || clock.ticksPerSecond <= 0) return startTime;
  const epochMs = clock.bootTimeMs + Math.round((Number(startTime) * 1000) / clock.ticksPerSecond);
  return `${new Date(epochMs).toISOString()} (${startTime})`;
}
