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
  /** How the last look that found anything knew: a /proc listing, or pids probed in the cursor's range. */
  readonly lastMode: 'none' | 'listed' | 'probed';
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
  /** Every pid listed or probed since the last listing (a probe adds to it). */
  readonly listed: Set<number>;
}

/** Where a watch looks; tests give it a scripted allocator. */
export interface PidSources {
  readonly cursor: () => number | null;
  readonly list: () => readonly number[];
  /**
   * Whether `pid` names a process (a thread group's leader, zombie or not), not one of its
   * threads: threads take their ids from the same allocator, and /proc/TID answers for them too,
   * though the listing never shows them. Absent: the watch always lists.
   */
  readonly isProcess?: (pid: number) => boolean;
}

/**
 * Up to this many pids allocated since the last look are probed one by one (a `status` read
 * each, ~20 µs) instead of listing /proc (~1.5 ms at ~1,000 processes, 4–6 ms at ~2,800 under
 * load): on a machine where a tick sees a few forks, that listing was most of a quiet tick.
 */
export const MAX_PROBED_PIDS = 16;

/** Whether /proc/PID/status names PID its own thread group (false for a thread id, or when gone). */
function isThreadGroupLeader(pid: number): boolean {
  const status = readProcText(`/proc/${pid}/status`);
  if (status === null) return false;
  const match = /^Tgid:\s+(\d+)/m.exec(status);
  return match !== null && Number(match[1]) === pid;
}

const procSources: PidSources = {
  cursor: () => (procIsOurNamespace() ? readCursor() : null),
  list: listPids,
  isProcess: isThreadGroupLeader,
};

/**
 * With the cursor in order since the last look's first reading, every process forked since that
 * reading has a pid in (last.before, before]: allocation only goes up until it wraps. Those not
 * already listed or probed are the new ones (pids allocated after `before` are the next look's).
 */
function probe(sources: PidSources, last: Look, before: number): number[] | null {
  const isProcess = sources.isProcess;
  if (isProcess === undefined || !(last.before <= last.after && last.after <= before)) return null;
  if (before - last.before > MAX_PROBED_PIDS) return null;
  const fresh: number[] = [];
  for (let pid = last.before + 1; pid <= before; pid += 1) if (!last.listed.has(pid) && isProcess(pid)) fresh.push(pid);
  return fresh;
}

export function createNewPidWatch(sources: PidSources = procSources): NewPidWatch {
  let last: Look | null = null;
  let mode: 'none' | 'listed' | 'probed' = 'none';
  return {
    next() {
      const before = sources.cursor();
      mode = 'none';
      // Nothing allocated since the last look's closing reading: the listing can only have shrunk.
      if (last !== null && before !== null && before === last.after) return [];
      const probed = last !== null && before !== null ? probe(sources, last, before) : null;
      if (probed !== null && last !== null && before !== null) {
        const after = sources.cursor();
        // Wrapped during the probe: what it found may be recycled pids, and nothing is a baseline.
        if (after === null || after < before) {
          last = null;
          return null;
        }
        for (const pid of probed) last.listed.add(pid);
        last = { before, after, listed: last.listed };
        mode = 'probed';
        return probed;
      }
      mode = 'listed';
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
    get lastMode() {
      return mode;
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
