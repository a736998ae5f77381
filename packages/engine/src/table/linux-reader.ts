/**
 * The Linux TableReader: a full snapshot whose per-poll cost is one stat read per process (a
 * pread of a file held open from the reader's second poll on, see held-stats.ts) and a cwd
 * readlink for each process that ran since the last poll plus a rotating share of the rest (argv
 * and uid come from the identity cache), and an owned-tree refresh that reads only the given
 * roots and what `/proc/PID/task/TID/children` says descends from them.
 */

import { statSync } from 'node:fs';
import { loadPidfd } from '../runtime/pidfd.js';
import { createHeldStats, createHeldTreeFiles, type PidfdHandles } from './held-stats.js';
import { hasChildrenFiles, readChildPids } from './linux-children.js';
import { buildEntry, type IdentityCache } from './linux-entry.js';
import { listPids, readHeldStatFields, readProcText, readStatFields, type StatFields } from './linux-stat.js';
import { filterTrees } from './trees.js';
import type { AdopterFilter, ProcessEntry, ProcessIdentity, ProcessTable, TableReader } from './types.js';

/** Above this many cached identities without a full snapshot to prune them, start over. */
export const MAX_CACHED_IDENTITIES = 65_536;
/** Ancestor chains are short; a longer one means a ppid loop in a torn read, so stop there. */
const MAX_ANCESTRY_DEPTH = 64;

/**
 * Every process's cwd is read at least once in this many full snapshots, however idle it looks:
 * what the idle check cannot see (a chdir inside one clock tick, a renamed directory) shows
 * within this many polls (4 s at the host's 1 s poll). A process that ran is read every poll.
 */
export const CWD_REFRESH_POLLS = 4;
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
  /** CWD_REFRESH_POLLS unless given; 1 re-reads every cwd on every snapshot. */
  readonly cwdRefreshPolls?: number;
  /**
   * true: each walk also pins a pidfd to every process it holds (`pinnedPidfds`), for a tree
   * owner's kill; a reader that only shows trees (the host's poll worker) holds no pidfd.
   */
  readonly pinPidfds?: boolean;
}

export function createLinuxReader(options: LinuxReaderOptions = {}): LinuxReader {
  let cache: IdentityCache = new Map();
  // The last full snapshot's entries: an unchanged process keeps its entry object (see buildEntry).
  let lastEntries: ReadonlyMap<number, ProcessEntry> = new Map();
  const withCwd = options.cwd !== false;
  const refreshEvery = Math.max(1, Math.floor(options.cwdRefreshPolls ?? CWD_REFRESH_POLLS));
  let snapshots = 0;
  const held = createHeldStats();
  // A kill reads the same members within milliseconds (before its freeze, after it, while they
  // die), a run's refresh every 250 ms: a walk holds each process's stat and children files until
  // a walk no longer reaches it, so a re-read is one pread each (same process, or nothing), and (an
  // owner's reader) a pidfd pinned to it, through which the kill's first SIGSTOP needs no read.
  const treeFiles = createHeldTreeFiles(options.pinPidfds === true ? pidfdHandles : undefined);

  function snapshot(): ProcessTable {
    // Only identities seen in this read survive it, so the cache never outgrows the table.
    const next: IdentityCache = new Map();
    const entries = new Map<number, ProcessEntry>();
    // The first read holds nothing: a reader read once (a CLI command) keeps no descriptor.
    const keep = snapshots > 0;
    const refreshSlot = snapshots % refreshEvery;
    const uidSlot = snapshots % UID_REFRESH_POLLS;
    snapshots += 1;
    for (const pid of listPids()) {
      const stat = readHeldStatFields(pid, held, keep);
      if (stat === null) continue;
      const known = cache.get(pid);
      if (known !== undefined) next.set(pid, known);
      const refreshCwd = pid % refreshEvery === refreshSlot;
      const refreshUid = pid % UID_REFRESH_POLLS === uidSlot;
      const entry = buildEntry(pid, stat, next, withCwd, lastEntries.get(pid), refreshCwd, refreshUid);
      if (entry !== null) entries.set(pid, entry);
    }
    held.release(entries);
    cache = next;
    lastEntries = entries;
    return { entries, readAtMs: Date.now() };
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
  };
  held.closeWhenCollected(reader);
  treeFiles.closeWhenCollected(reader);
  return reader;
}
