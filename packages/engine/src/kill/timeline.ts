/** The kill's timeline: what was sent to whom, when, relative to the start of the kill. */
import type { KillTimelineEntry } from './types.js';

export interface Timeline {
  readonly entries: KillTimelineEntry[];
  readonly startedAtMs: number;
  add(entry: Omit<KillTimelineEntry, 'atMs'>): void;
  elapsedMs(): number;
}

export function createTimeline(): Timeline {
  const startedAtMs = Date.now();
  const started = performance.now();
  const entries: KillTimelineEntry[] = [];
  return {
    entries,
    startedAtMs,
    add(entry) {
      entries.push({ atMs: Math.round((performance.now() - started) * 10) / 10, ...entry });
    },
    elapsedMs: () => performance.now() - started,
  };
}
