/**
 * CPU and memory over time for the processes the alert judgement looks at (live sessions'
 * members only, never the whole machine): one bounded ring per identity, a sample kept at most
 * every SAMPLE_SPACING_MS. A sample's CPU is the share of a core used since the previous kept
 * sample; the first sample of an identity has none (unknown), and an unknown never counts as
 * evidence of a spin or of idleness.
 */
import type { ProcessEntry } from '../../table/types.js';

/** Samples closer than this are not kept (the observer ticks every second; windows are minutes). */
export const SAMPLE_SPACING_MS = 5000;
/** Ring bound per identity: at SAMPLE_SPACING_MS this spans 1 h, the longest useful default window ×10. */
export const MAX_SAMPLES_PER_PROCESS = 720;

export interface UsageSample {
  readonly atMs: number;
  readonly cpuTimeMs: number;
  /** Percent of one core since the previous sample; null for the first (unknown). */
  readonly cpuPercent: number | null;
  readonly memoryBytes: number;
}

export interface SampleHistory {
  /** Records one read of these entries (only those the judgement looks at); forgets identities not in it. */
  record(entries: Iterable<ProcessEntry>, atMs: number): void;
  samplesOf(entry: ProcessEntry): readonly UsageSample[];
  /**
   * A rule's verdict over an identity's samples, computed again only once a sample was added
   * (every SAMPLE_SPACING_MS, not every tick: the window rules walk minutes of samples).
   */
  memo<T>(entry: ProcessEntry, rule: string, compute: (samples: readonly UsageSample[]) => T): T;
  readonly size: number;
}

function nextSample(previous: UsageSample | undefined, entry: ProcessEntry, atMs: number): UsageSample {
  const elapsed = previous === undefined ? 0 : atMs - previous.atMs;
  const used = previous === undefined ? 0 : entry.cpuTimeMs - previous.cpuTimeMs;
  return {
    atMs,
    cpuTimeMs: entry.cpuTimeMs,
    cpuPercent: previous === undefined || elapsed <= 0 ? null : Math.max(0, (used / elapsed) * 100),
    memoryBytes: Math.max(0, entry.rssBytes),
  };
}

interface Ring {
  /** The identity's start time: a ring under a recycled pid is another process's, and starts over. */
  readonly startTime: string;
  readonly samples: UsageSample[];
  /** Verdicts over `samples` as they are now (emptied when a sample is added). */
  readonly verdicts: Map<string, unknown>;
  /** The record() call that last saw this identity (older: gone, forgotten). */
  seen: number;
}

export function createSampleHistory(spacingMs = SAMPLE_SPACING_MS, capacity = MAX_SAMPLES_PER_PROCESS): SampleHistory {
  // By pid (numbers hash cheaply; this runs for every member every tick), checked against the start time.
  const rings = new Map<number, Ring>();
  let generation = 0;
  return {
    record(entries, atMs) {
      generation += 1;
      for (const entry of entries) {
        let ring = rings.get(entry.pid);
        if (ring === undefined || ring.startTime !== entry.startTime) {
          ring = { startTime: entry.startTime, samples: [], verdicts: new Map(), seen: generation };
          rings.set(entry.pid, ring);
        } else if (ring.seen === generation) continue;
        ring.seen = generation;
        const last = ring.samples.at(-1);
        if (last === undefined || atMs - last.atMs >= spacingMs) {
          ring.samples.push(nextSample(last, entry, atMs));
          ring.verdicts.clear();
          if (ring.samples.length > capacity) ring.samples.splice(0, ring.samples.length - capacity);
        }
      }
      // An identity never comes back once gone: only the current ones are remembered.
      for (const [pid, ring] of rings) if (ring.seen !== generation) rings.delete(pid);
    },
    samplesOf(entry) {
      const ring = rings.get(entry.pid);
      return ring !== undefined && ring.startTime === entry.startTime ? ring.samples : [];
    },
    memo(entry, rule, compute) {
      const ring = rings.get(entry.pid);
      if (ring === undefined || ring.startTime !== entry.startTime) return compute([]);
      if (!ring.verdicts.has(rule)) ring.verdicts.set(rule, compute(ring.samples));
      return ring.verdicts.get(rule) as ReturnType<typeof compute>;
    },
    get size() {
      return rings.size;
    },
  };
}

/** No history: the one-shot commands (`sessions`, `trim`) judge from the kernel's own counters only. */
export const NO_SAMPLES: Pick<SampleHistory, 'samplesOf' | 'memo'> = {
  samplesOf: () => [],
  memo: (_entry, _rule, compute) => compute([]),
};

/** What the rules read of a history. */
export type SampleReader = Pick<SampleHistory, 'samplesOf' | 'memo'>;
