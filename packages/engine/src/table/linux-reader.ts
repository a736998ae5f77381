/**
 * The Linux TableReader: a full snapshot whose per-poll cost is one schedstat read per process
 * (a pread of a file held open from the reader's second poll on, see held-stats.ts; about a third
 * of a stat read's kernel time) and, for each process that ran since the last poll plus a rotating
 * share of the rest, a stat read and a cwd readlink (argv and uid come from the identity cache);
 * and an owned-tree refresh that reads only the given roots and what
 * `/proc/PID/task/TID/children` says descends from them.
 */

import { statSync } from 'node:fs';
import { loadPidfd } from '../runtime/pidfd.js';
import { createHeldStats, createHeldTreeFiles, type PidfdHandles } from './held-stats.js';
import { hasChildrenFiles, readChildPids } from './linux-children.js';
import { buildEntry, type IdentityCache } from './linux-entry.js';
import {
  listPids,
  readHeldSchedstat,
  readHeldStatFields,
  readProcText,
  readStatFields,
  type StatFields,
} from './linux-stat.js';
import { createNewPidWatch } from './new-pids.js';
import { filterTrees } from './trees.js';
import type { AdopterFilter, ProcessEntry, ProcessIdentity, ProcessTable, TableReader } from './types.js';

/** Above this many cached identities without a full snapshot to prune them, start over. */
export const MAX_CACHED_IDENTITIES = 65_536;
/** Ancestor chains are short; a longer one means a ppid loop in a torn read, so stop there. */
const MAX_ANCESTRY_DEPTH = 64;

/**
 * Every process's cwd is read again once in this many full snapshots. In a display's reader
 * (keepIdle; its own count, KEPT_REFRESH_POLLS) every process's stat too, however idle it looks,
 * and /proc is listed: what the idle checks cannot see shows within that many polls. A process
 * that ran is read every poll. Between, a
 * single-threaded process that did not run (its `schedstat` unchanged: run time in ns, wait time
 * and the count of times it was put on a CPU) keeps its last entry whole, stat unread: its state,
 * CPU, comm, session, uid and cwd change only by running (an exit, a stop or a kill's death run
 * the process), and a reparenting (its ppid, when its parent died) is read at once (see
 * `reparented`). What only this rotation shows: a cwd whose directory was renamed, rss that
 * reclaim or a swap-out took, a group that its parent changed by setpgid before the child
 * exec'd. Multi-threaded processes are read every poll (`/proc/PID/schedstat` is the main
 * thread's, not the group's).
 *
 * Why 8, not the 4 it was: the rotation's stat reads and cwd readlinks were most of an idle
 * poll once the idle check kept the rest (at ~1,000 processes here, 9.8 ms a snapshot at 4,
 * 7.2 ms at 8, 6.3 ms at 16, 5.6 ms with no rotation), and what it alone shows is cosmetic.
 * A multiple of 2, so that the uid rotation's slot (UID_REFRESH_POLLS) falls in this one's.
 */
export const CWD_REFRESH_POLLS = 8;
/**
 * The same rotation in a display's reader (keepIdle), where it is most of what an idle poll
 * reads: at ~1,000 processes and 8 polls, 125 stat reads, cwd readlinks and their entries a
 * second, ~40 % of the poll worker's table time (tools/worker-cost.mjs). What only the rotation
 * shows is cosmetic (above), so a display sees it within 32 polls; equal to UID_REFRESH_POLLS,
 * so a re-read idle process has its uid and argv re-read in the same slot.
 */
export const KEPT_REFRESH_POLLS = 32;
/**
 * Every process's uid and argv are re-read once per this many snapshots even when it did not run
 * (see buildEntry): a thirty-second of the table per poll (~31 stat(2) calls and cmdline reads a
 * second at ~1,000 processes and 1 s polls).
 */
export const UID_REFRESH_POLLS = 32;

export interface LinuxReader extends TableReader {
  /** The full table, synchronously. */
  snapshot(): ProcessTable;
  /** The given roots and their live descendants, synchronously. */
  snapshotTrees(rootPids: readonly number[]): ProcessTable;
  /** The pidfds its walks pinned (always there on Linux; see TableReader). */
  pinnedPidfds(identities: readonly ProcessIdentity[], uid?: number): ReadonlyMap<number, number> | null;
  /** Gives back the files held between polls and walks (the reader stays usable). */
  close(): void;
  /** What the last full snapshot read: stat files, and entries kept whole on an unchanged schedstat. */
  lastSnapshotReads(): SnapshotReads;
}

export interface SnapshotReads {
  readonly stats: number;
  readonly kept: number;
}

function orNull(read: () => ProcessTable): ProcessTable | null {
  try {
    return read();
  } catch {
    return null;
  }
}

/** The last pid the kernel allocated in our pid namespace; null where the file is missing. */
function readLastPid(): number | null {
  const text = readProcText('/proc/sys/kernel/ns_last_pid');
  const pid = text === null ? Number.NaN : Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/**
 * Whether a pid was allocated after `mark`: pids are handed out in increasing order and wrap at
 * pid_max, so "after" is the cyclic range (mark, now]. A full wrap since the mark would hide a pid
 * from this test: a missed candidate, never a wrong one, and no more than pid_max forks ago.
 */
function allocatedSince(mark: number | undefined): (pid: number) => boolean {
  const now = mark === undefined ? null : readLastPid();
  if (mark === undefined || now === null) return () => true;
  return now >= mark ? (pid) => pid > mark && pid <= now : (pid) => pid > mark || pid <= now;
}

/**
 * What deciding on a candidate takes (identity, ancestry, state, uid) and nothing more: no argv,
 * no cwd. Null when the process vanished meanwhile.
 */
function identityEntry(pid: number, stat: StatFields): ProcessEntry | null {
  let uid: number;
  try {
    uid = statSync(`/proc/${pid}`).uid;
  } catch {
    return null;
  }
  return {
    pid,
    startTime: stat.startTicks,
    ppid: stat.ppid,
    pgid: stat.pgid,
    sid: stat.sid,
    state: stat.state,
    uid,
    command: stat.command,
    args: [],
    cwd: null,
    cpuTimeMs: 0,
    rssBytes: 0,
    startedAtMs: 0,
  };
}

/** The kernel's state letters that say a process is on a CPU or waiting for one: read it every poll. */
function mayBeRunning(state: string): boolean {
  return state === 'R';
}

function isDead(state: string): boolean {
  return state === 'Z' || state === 'X';
}

/** pidfds through the pidfd API, loaded at the first walk (a poll-only reader never loads it). */
const pidfdHandles: PidfdHandles = {
  open(pid) {
    const opened = loadPidfd()?.open(pid);
    return opened !== undefined && 'fd' in opened ? opened.fd : null;
  },
  close(fd) {
    loadPidfd()?.close(fd);
  },
};

export interface LinuxReaderOptions {
  /** false: entries carry no cwd (one readlink per process saved); for owners, which never use it. */
  readonly cwd?: boolean;
  /** CWD_REFRESH_POLLS (KEPT_REFRESH_POLLS with keepIdle) unless given; 1 re-reads every cwd on every snapshot. */
  readonly cwdRefreshPolls?: number;
  /**
   * true: each walk also pins a pidfd to every process it holds (`pinnedPidfds`), for a tree
   * owner's kill; a reader that only shows trees (the host's poll worker) holds no pidfd.
   */
  readonly pinPidfds?: boolean;
  /**
   * true: between refresh rotations, keep the entry of a process whose schedstat says it has not
   * run, and take the pids from the last table plus those allocated since instead of listing
   * /proc (see CWD_REFRESH_POLLS). For a display's poll (the host's poll worker): what only the
   * rotation shows (a renamed cwd, reclaimed rss, a pid handed out again by a write to
   * ns_last_pid, as CRIU does) shows up to a rotation late. Decisions (kills, owners, the CLI)
   * read every process and list /proc on every snapshot.
   */
  readonly keepIdle?: boolean;
}

export function createLinuxReader(options: LinuxReaderOptions = {}): LinuxReader {
  let cache: IdentityCache = new Map();
  // The last full snapshot's entries: an unchanged process keeps its entry object (see buildEntry).
  let lastEntries: ReadonlyMap<number, ProcessEntry> = new Map();
  const withCwd = options.cwd !== false;
  const keepIdle = options.keepIdle === true;
  const defaultRefresh = keepIdle ? KEPT_REFRESH_POLLS : CWD_REFRESH_POLLS;
  const refreshEvery = Math.max(1, Math.floor(options.cwdRefreshPolls ?? defaultRefresh));
  let snapshots = 0;
  const held = createHeldStats();
  // A kill reads the same members within milliseconds (before its freeze, after it, while they
  // die), a run's refresh every 250 ms: a walk holds each process's stat and children files until
  // a walk no longer reaches it, so a re-read is one pread each (same process, or nothing), and (an
  // owner's reader) a pidfd pinned to it, through which the kill's first SIGSTOP needs no read.
  const treeFiles = createHeldTreeFiles(options.pinPidfds === true ? pidfdHandles : undefined);

  // Per single-threaded process not running at its last read: its schedstat, read just before
  // that stat. The same text again means the process has not run since, so that stat still holds.
  // These two and `cache` are updated in place and pruned to the table after each snapshot: built
  // afresh, three maps of ~1,000 entries grew (rehash after rehash) every poll, most of an idle
  // poll's allocation.
  const idleMarks = new Map<number, string>();
  // Processes whose last stat said multi-threaded or running: no schedstat is read for them.
  const busy = new Set<number>();
  let lastReads: SnapshotReads = { stats: 0, kept: 0 };
  const pidWatch = createNewPidWatch();

  /** Stat and entry of one process (`mark`: its schedstat read just before, or null); null: gone. */
  function readEntry(pid: number, keep: boolean, refresh: boolean, refreshUid: boolean, mark: string | null) {
    const stat = readHeldStatFields(pid, held, keep);
    if (stat === null) return null;
    const previous = lastEntries.get(pid);
    const entry = buildEntry(pid, stat, cache, withCwd, previous, refresh, refreshUid);
    if (entry === null) return null;
    const isBusy = stat.numThreads !== 1 || mayBeRunning(stat.state);
    if (isBusy) busy.add(pid);
    else busy.delete(pid);
    // The mark stands for this stat only when both were read from the same process: the one the
    // last snapshot saw (a failed held read reads a recycled pid by path, a new process).
    if (!isBusy && mark !== null && previous?.startTime === entry.startTime) idleMarks.set(pid, mark);
    else idleMarks.delete(pid);
    return entry;
  }

  function snapshot(): ProcessTable {
    const entries = new Map<number, ProcessEntry>();
    // The first read holds nothing: a reader read once (a CLI command) keeps no descriptor.
    const keep = snapshots > 0;
    const refreshSlot = snapshots % refreshEvery;
    const uidSlot = snapshots % UID_REFRESH_POLLS;
    snapshots += 1;
    let stats = 0;
    const kept: number[] = [];
    for (const pid of pidsToRead(keepIdle && keep && refreshSlot !== 0)) {
      const refresh = pid % refreshEvery === refreshSlot;
      const previous = lastEntries.get(pid);
      const mark = keepIdle && keep && !busy.has(pid) ? readHeldSchedstat(pid, held, idleMarks.get(pid)) : null;
      if (!refresh && mark !== null && mark === idleMarks.get(pid) && previous !== undefined && parentKnown(previous)) {
        entries.set(pid, previous);
        kept.push(pid);
        continue;
      }
      stats += 1;
      const entry = readEntry(pid, keep, refresh, pid % UID_REFRESH_POLLS === uidSlot, mark);
      if (entry !== null) entries.set(pid, entry);
    }
    // A kept process did not run, but its parent's death reparents it without its running.
    const moved = reparented(kept, entries);
    for (const pid of moved) {
      stats += 1;
      idleMarks.delete(pid);
      const entry = readEntry(pid, keep, true, false, null);
      if (entry === null) entries.delete(pid);
      else entries.set(pid, entry);
    }
    held.release(entries);
    // Only identities, marks and busy flags of processes in this read survive it: none of them
    // outgrows the table.
    pruneTo(entries);
    lastEntries = entries;
    lastReads = { stats, kept: kept.length - moved.length };
    return { entries, readAtMs: Date.now() };
  }

  function pruneTo(entries: ReadonlyMap<number, ProcessEntry>): void {
    // Deleting during forEach is defined: a deleted key is not visited again.
    cache.forEach((_identity, pid) => {
      if (!entries.has(pid)) cache.delete(pid);
    });
    idleMarks.forEach((_mark, pid) => {
      if (!entries.has(pid)) idleMarks.delete(pid);
    });
    busy.forEach((pid) => {
      if (!entries.has(pid)) busy.delete(pid);
    });
  }

  /**
   * The pids to read: the last table's and those allocated since (new-pids.ts: the allocator's
   * cursor, and a probe of the few pids it handed out), without listing /proc (~1 ms at ~1,000
   * processes, most of what is left of an idle poll). A gone process fails its read. /proc is
   * listed still on the first read, once per refresh rotation, and whenever the watch cannot
   * tell (a wrap, more forks than it probes).
   */
  function pidsToRead(mayDerive: boolean): Iterable<number> {
    if (!keepIdle) return listPids();
    const fresh = pidWatch.next();
    if (!mayDerive || fresh === null) return listPids();
    const pids = [...lastEntries.keys()];
    for (const pid of fresh) if (!lastEntries.has(pid)) pids.push(pid);
    return pids;
  }

  /**
   * Whether a parent's death would show in the next read: its pid was in the last table (pid 0,
   * the kernel, never dies). Otherwise the child is read every poll.
   */
  function parentKnown(previous: ProcessEntry): boolean {
    return previous.ppid === 0 || lastEntries.has(previous.ppid);
  }

  /**
   * Kept processes whose parent (in the last table) is gone, a zombie now, or another process:
   * the kernel reparents children in the parent's exit before it turns zombie, so their stat
   * read now, after every parent's, shows the new parent.
   */
  function reparented(kept: readonly number[], entries: ReadonlyMap<number, ProcessEntry>): number[] {
    if (kept.length === 0) return [];
    const died = new Set<number>();
    // forEach, not for-of over entries: no [pid, entry] pair per process each poll.
    lastEntries.forEach((before, pid) => {
      const now = entries.get(pid);
      if (now === undefined || now.startTime !== before.startTime || (isDead(now.state) && !isDead(before.state)))
        died.add(pid);
    });
    if (died.size === 0) return [];
    return kept.filter((pid) => died.has(entries.get(pid)?.ppid ?? 0));
  }

  function walkTrees(rootPids: readonly number[]): ProcessTable {
    if (cache.size > MAX_CACHED_IDENTITIES) cache = new Map();
    const entries = new Map<number, ProcessEntry>();
    const pending = [...rootPids];
    for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
      if (entries.has(pid) || pid <= 0) continue;
      const stat = readHeldStatFields(pid, treeFiles, true);
      if (stat === null) continue;
      const entry = buildEntry(pid, stat, cache, withCwd);
      if (entry === null) continue;
      entries.set(pid, entry);
      treeFiles.noteIdentity(pid, entry.startTime, entry.uid);
      // A zombie may still hold children on its exiting threads (see readChildPids): read them all.
      pending.push(...readChildPids(pid, stat.numThreads, stat.state === 'Z', treeFiles));
    }
    treeFiles.release(entries);
    return { entries, readAtMs: Date.now() };
  }

  function snapshotAdopters(pids: readonly number[], filter: AdopterFilter): ProcessTable {
    if (cache.size > MAX_CACHED_IDENTITIES) cache = new Map();
    // Start times are clock ticks since boot: older processes are skipped once their stat is read.
    const oldest = filter.notBefore === undefined ? Number.NEGATIVE_INFINITY : Number(filter.notBefore);
    const isNew = allocatedSince(filter.allocatedAfter);
    const ancestors = new Map<number, number>();
    for (const pid of [...pids, 1]) {
      let current = pid;
      for (let depth = 0; depth < MAX_ANCESTRY_DEPTH && current >= 1 && !ancestors.has(current); depth += 1) {
        const stat = readStatFields(current);
        if (stat === null || stat.state === 'Z') break;
        ancestors.set(current, stat.numThreads);
        current = stat.ppid;
      }
    }
    const entries = new Map<number, ProcessEntry>();
    for (const [ancestor, numThreads] of ancestors) {
      for (const child of readChildPids(ancestor, numThreads)) {
        const skip = entries.has(child) || filter.known?.has(child) === true || !isNew(child);
        const stat = skip ? null : readStatFields(child);
        // Zombies are stopped already (and unreaped dead members land here): nothing to find in them.
        if (stat === null || stat.state === 'Z' || stat.state === 'X' || Number(stat.startTicks) < oldest) continue;
        const entry = identityEntry(child, stat);
        if (entry !== null) entries.set(child, entry);
      }
    }
    return { entries, readAtMs: Date.now() };
  }

  function snapshotPids(pids: readonly number[]): ProcessTable {
    const entries = new Map<number, ProcessEntry>();
    for (const pid of pids) {
      // Through a walk's held file where there is one; nothing new is held for a pid read.
      const stat = readHeldStatFields(pid, treeFiles, false);
      const entry = stat === null ? null : buildEntry(pid, stat, cache, withCwd);
      if (entry !== null) entries.set(pid, entry);
    }
    return { entries, readAtMs: Date.now() };
  }

  function snapshotTrees(rootPids: readonly number[]): ProcessTable {
    // Kernels without CONFIG_PROC_CHILDREN: fall back to a full read filtered down.
    return hasChildrenFiles() ? walkTrees(rootPids) : filterTrees(snapshot(), rootPids);
  }

  const reader: LinuxReader = {
    platform: 'linux',
    snapshot,
    snapshotTrees,
    // Only an unreadable /proc itself throws; that is "no table", never a partial one.
    readAll: async () => orNull(snapshot),
    readTrees: async (rootPids) => orNull(() => snapshotTrees(rootPids)),
    readPids: async (pids) => orNull(() => snapshotPids(pids)),
    readAdopters: async (pids, filter = {}) =>
      hasChildrenFiles() ? orNull(() => snapshotAdopters(pids, filter)) : null,
    lastAllocatedPid: readLastPid,
    pinnedPidfds(identities, uid) {
      const pidfds = new Map<number, number>();
      for (const identity of identities) {
        const pidfd = treeFiles.pinned(identity, uid);
        if (pidfd === null) return null;
        pidfds.set(identity.pid, pidfd);
      }
      return pidfds;
    },
    close: () => {
      held.close();
      treeFiles.close();
    },
    lastSnapshotReads: () => lastReads,
  };
  held.closeWhenCollected(reader);
  treeFiles.closeWhenCollected(reader);
  return reader;
}
