/**
 * CPU and memory over time for the processes the alert judgement looks at (live sessions'
 * members only, never the whole machine): one bounded ring per identity, a sample kept at most
 * every SAMPLE_SPACING_MS. A sample's CPU is the share of a core used since the previous kept
 * sample; the first sample of an identity has none (unknown), and an unknown never counts as
 * evidence of a spin or of idleness.
 */
import { identityKey, type ProcessEntry } from '../../table/types.js';

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

export function createSampleHistory(spacingMs = SAMPLE_SPACING_MS, capacity = MAX_SAMPLES_PER_PROCESS): SampleHistory {
  let rings = new Map<string, UsageSample[]>();
  return {
    record(entries, atMs) {
      const next = new Map<string, UsageSample[]>();
      for (const entry of entries) {
        const key = identityKey(entry);
        if (next.has(key)) continue;
        const ring = rings.get(key) ?? [];
        const last = ring.at(-1);
        if (last === undefined || atMs - last.atMs >= spacingMs) {
          ring.push(nextSample(last, entry, atMs));
          if (ring.length > capacity) ring.splice(0, ring.length - capacity);
        }
        next.set(key, ring);
      }
      // An identity never comes back once gone: only the current ones are remembered.
      rings = next;
    },
    samplesOf(entry) {
      return rings.get(identityKey(entry)) ?? [];
    },
    get size() {
      return rings.size;
    },
  };
}

/** No history: the one-shot commands (`sessions`, `trim`) judge from the kernel's own counters only. */
export const NO_SAMPLES: Pick<SampleHistory, 'samplesOf'> = { samplesOf: () => [] };
