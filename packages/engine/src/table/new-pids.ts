/**
 * Which processes are new since the last look (Linux), for the focused read's incremental
 * children: the /proc listing now minus the listing before. That difference holds every process
 * forked since, unless a pid was handed out again meanwhile (a recycled pid is listed both times,
 * so it does not look new). The kernel hands pids out in increasing order and only reuses one
 * after wrapping at pid_max, so the pid allocator's cursor (the last field of /proc/loadavg: the
 * last pid allocated in this process's pid namespace) is read before and after each listing; when
 * the four readings around two listings are not in order, the allocator wrapped somewhere in
 * between, the difference cannot be trusted, and the caller reads children exactly instead.
 * (A whole cycle of pid_max allocations between two readings, about a second apart, would also
 * look in order; the watcher's safety-net full scan every FULL_SCAN_INTERVAL_MS bounds it.)
 */
import { readlinkSync } from 'node:fs';
import { listPids, readProcText } from './linux-stat.js';

/** `null`: no trusted difference this time (first look, a wrap, or an unreadable cursor). */
export type NewPids = readonly number[] | null;

export interface NewPidWatch {
  /** The processes listed now and not at the last look, or null when that cannot be known. */
  next(): NewPids;
  /** Forget the last listing: the next look answers null. */
  reset(): void;
}

/** The last field of /proc/loadavg ("0.10 0.20 0.30 1/88 30897"), or null when unreadable. */
export function parseAllocatorCursor(text: string | null): number | null {
  if (text === null) return null;
  const last = text.trim().split(' ').pop();
  const cursor = Number(last);
  return last !== undefined && last.length > 0 && Number.isInteger(cursor) && cursor >= 0 ? cursor : null;
}

function readCursor(): number | null {
  return parseAllocatorCursor(readProcText('/proc/loadavg'));
}

/**
 * /proc/loadavg's cursor belongs to this process's pid namespace and the listing to /proc's; they
 * agree when /proc/self names this process (else no cursor, so every look answers null). Asked once.
 */
let sameNamespace: boolean | undefined;
function procIsOurNamespace(): boolean {
  if (sameNamespace === undefined) {
    try {
      sameNamespace = readlinkSync('/proc/self') === String(process.pid);
    } catch {
      sameNamespace = false;
    }
  }
  return sameNamespace;
}

interface Look {
  readonly before: number;
  readonly after: number;
  readonly listed: ReadonlySet<number>;
}

/** Where a watch looks; tests give it a scripted allocator. */
export interface PidSources {
  readonly cursor: () => number | null;
  readonly list: () => readonly number[];
}

const procSources: PidSources = {
  cursor: () => (procIsOurNamespace() ? readCursor() : null),
  list: listPids,
};

export function createNewPidWatch(sources: PidSources = procSources): NewPidWatch {
  let last: Look | null = null;
  return {
    next() {
      const before = sources.cursor();
      // Nothing allocated since the last look's closing reading: the listing can only have shrunk.
      if (last !== null && before !== null && before === last.after) return [];
      const listed = new Set(sources.list());
      const after = sources.cursor();
      const previous = last;
      if (before === null || after === null) {
        last = null;
        return null;
      }
      last = { before, after, listed };
      if (previous === null) return null;
      // In order across both looks: no wrap from the first reading of the last look to now.
      if (!(previous.before <= previous.after && previous.after <= before && before <= after)) return null;
      const fresh: number[] = [];
      for (const pid of listed) if (!previous.listed.has(pid)) fresh.push(pid);
      return fresh;
    },
    reset() {
      last = null;
    },
  };
}

/**
 * Whether this process can tell new pids at all (the cursor is readable and /proc is its own pid
 * namespace's). Without it every look answers null, so a caller relying on the watch to find new
 * processes must fall back to reading all of them.
 */
export function newPidWatchAvailable(): boolean {
  return procSources.cursor() !== null;
}
