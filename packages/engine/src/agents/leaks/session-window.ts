/**
 * Whether a remembered session's window is one a real session could have had, before its record
 * may point `orphans --clean` at anything. A stale record from an earlier boot, a hand-edited or
 * planted one (`startedAtMs: 0`, an end in the future or before the start) or one whose root's
 * own start lies outside the window is reported and never acted on: a miss is better than a kill.
 */
import { bootTime, clockTicks } from '../../table/linux-stat.js';
import type { StoredSession } from '../sessions/store-schema.js';
import { END_CLOCK_SLACK_MS } from './leak-judge.js';

export interface WindowFacts {
  /** When this boot began (ms since the epoch); 0 when unknown. */
  readonly bootTimeMs: number;
  readonly now: number;
  /** A recorded start time (the table's `startTime`) as ms since the epoch; null when it cannot be read. */
  readonly startMsOf: (startTime: string) => number | null;
}

/** Linux: start ticks since boot; elsewhere the record's start stays unchecked against the root. */
export function linuxWindowFacts(now: number): WindowFacts {
  const linux = process.platform === 'linux';
  const boot = linux ? bootTime() : 0;
  return {
    bootTimeMs: boot,
    now,
    startMsOf: (startTime) =>
      linux && /^\d{1,20}$/.test(startTime) ? boot + Math.round((Number(startTime) * 1000) / clockTicks()) : null,
  };
}

const at = (ms: number): string => new Date(ms).toISOString();

/** Why `session`'s window is implausible, or null when it may be acted on. */
export function implausibleWindow(session: StoredSession, facts: WindowFacts): string | null {
  const { startedAtMs, endedAtMs, lastSeenAtMs } = session;
  const future = facts.now + END_CLOCK_SLACK_MS;
  if (facts.bootTimeMs > 0 && startedAtMs < facts.bootTimeMs - END_CLOCK_SLACK_MS)
    return `its window starts at ${at(startedAtMs)}, before this boot (${at(facts.bootTimeMs)}): its pids are not this boot's`;
  if (endedAtMs !== null && endedAtMs < startedAtMs) return `it ends (${at(endedAtMs)}) before it starts`;
  if (startedAtMs > future || lastSeenAtMs > future || (endedAtMs !== null && endedAtMs > future))
    return 'its window lies in the future';
  const rootStartMs = facts.startMsOf(session.root.startTime);
  if (rootStartMs === null) return null;
  // A resumed session keeps its first start, so its root may have started later; never earlier.
  if (rootStartMs < startedAtMs - END_CLOCK_SLACK_MS)
    return `its root ${session.root.pid} started at ${at(rootStartMs)}, before the window's start ${at(startedAtMs)}`;
  const end = endedAtMs ?? facts.now;
  if (rootStartMs > end + END_CLOCK_SLACK_MS)
    return `its root ${session.root.pid} started at ${at(rootStartMs)}, after the session ended`;
  return null;
}
