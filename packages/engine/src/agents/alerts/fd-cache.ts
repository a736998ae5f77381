/**
 * The fd reader a long-lived tracker judges with: each identity's count is read at most once per
 * `maxAgeMs` (a readdir and a readlink per fd is far dearer than the table's stat line), and
 * entries of processes not asked about in a tick are dropped.
 */
import { type FdUsage, maxUserWatches, readFdUsage } from '../../table/fd-usage.js';
import { identityKey, type ProcessEntry } from '../../table/types.js';
import type { FdReader } from './fd-hog.js';

export const FD_READ_SPACING_MS = 10_000;

export interface CachedFdReader extends FdReader {
  /** Forget identities not read since the last call (once per tick). */
  sweep(): void;
}

/**
 * `readThisTick`: usage another judgement of this tick already listed (the port reader lists
 * members' fds on full scans), or undefined. Taken whenever there, it renews the identity's
 * entry for free: the spacing then lines up with the full scans, so the members' fds are listed
 * once a scan instead of once for ports and once again for this alert.
 */
export function createCachedFdReader(
  now: () => number = Date.now,
  maxAgeMs = FD_READ_SPACING_MS,
  read: (pid: number) => FdUsage | null = readFdUsage,
  readThisTick: (pid: number) => FdUsage | null | undefined = () => undefined,
): CachedFdReader {
  let cache = new Map<string, { atMs: number; usage: FdUsage | null }>();
  let touched = new Map<string, { atMs: number; usage: FdUsage | null }>();
  const watches = maxUserWatches();
  return {
    maxUserWatches: watches,
    usageOf(entry: ProcessEntry) {
      const key = identityKey(entry);
      const at = now();
      const shared = touched.has(key) ? undefined : readThisTick(entry.pid);
      const known = shared !== undefined ? { atMs: at, usage: shared } : (touched.get(key) ?? cache.get(key));
      const fresh = known !== undefined && at - known.atMs < maxAgeMs ? known : { atMs: at, usage: read(entry.pid) };
      touched.set(key, fresh);
      return fresh.usage;
    },
    sweep() {
      cache = touched;
      touched = new Map();
    },
  };
}

/** A one-shot reader (a CLI command judges once): reads each member once. */
export function directFdReader(): FdReader {
  return { maxUserWatches: maxUserWatches(), usageOf: (entry) => readFdUsage(entry.pid) };
}
