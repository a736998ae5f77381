/**
 * `/proc/PID/stat` files held open between polls: a poll then costs one pread per process instead
 * of open + read + close (measured here: 2.7 vs 4.7 ms at ~1,000 processes, 31 vs 40 ms at
 * ~5,000). An open /proc/PID file names the process, not the pid number: once that process is
 * reaped its reads fail with ESRCH, and it can never show a later process that recycled the pid,
 * so a failed read closes the file and the pid is read anew by path.
 *
 * What holding costs: one descriptor each and, in the kernel, the seq_file's page kept with it
 * (4 KiB a file), so every reader in this thread shares one budget (HELD_STAT_BUDGET, or half
 * of the open-file limit where that is smaller; a worker thread has its own, and Treewarden polls
 * the full table in one thread only); processes beyond it are read by path.
 * Only a reader that polls holds anything: files are kept from its second read on, so a one-shot
 * reader (a CLI command) never keeps a descriptor. `close()` gives them back; a reader dropped
 * without it gives them back when it is collected. A tree walk holds more per process
 * (HeldTreeFiles: its children list and a pidfd pinned to it), under the same budget.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import type { ProcessIdentity } from './types.js';

/** At most this many files held open by the readers of one thread (32 MiB of kernel pages at 4 KiB each). */
export const HELD_STAT_BUDGET = 8192;

export interface HeldStats {
  /**
   * Reads `/proc/PID/stat` into `buffer`: its length, or -1 when the process is gone or
   * unreadable. `keep` says whether to hold the file for the next poll.
   */
  read(pid: number, buffer: Buffer, keep: boolean): number;
  /**
   * Reads `/proc/PID/schedstat` into `buffer` through a file held beside the pid's held stat
   * (opened on the first call while the stat is held): its length, or -1 where no stat is held
   * for the pid or the read failed. A failed read (ESRCH: the process the files named was reaped)
   * gives back the pid's files, so its next `read` is by path. Opened before the stat's next read:
   * when that read succeeds, both files name the same process (see HeldTreeFiles for why).
   */
  readSchedstat(pid: number, buffer: Buffer): number;
  /** Closes the files of every pid not in `live` (the processes this poll listed). */
  release(live: { has(pid: number): boolean }): void;
  close(): void;
  /** Closes the held files once `owner` (the reader) is collected, if `close()` was never called. */
  closeWhenCollected(owner: object): void;
}

/**
 * A tree walk's files: each process's `stat`, its main thread's `children` list and (where the
 * platform has them) a pidfd, held together and dropped together. A held `children` file of a
 * reaped process reads empty rather than failing, so the set lives and dies with its `stat` (read
 * first in a walk): once that answers ESRCH all are closed and the pid is read anew by path.
 *
 * The pidfd is pinned without a read of its own: it is opened after the stat file and before that
 * file's first read. A successful read then shows that the process the stat file names was not
 * reaped by then, so it held the pid throughout, and the pidfd opened in between names it too. A
 * signal through it reaches that process or nobody (ESRCH), never a later holder of the pid: the
 * kill's first freeze round needs no read before it (kill/owner-kill.ts).
 */
export interface HeldTreeFiles extends HeldStats {
  /**
   * Reads `/proc/PID/task/PID/children` into `buffer` through the file held beside the pid's stat
   * (opened and held on its first read while the stat is held): its length, or -1 where it holds
   * no stat for the pid or the read failed (the caller reads by path).
   */
  readChildren(pid: number, buffer: Buffer): number;
  /** What the walk just read through the held stat of `pid`: its start time and uid (`pinned` checks them). */
  noteIdentity(pid: number, startTime: string, uid: number): void;
  /**
   * The pidfd pinned to `identity` when the held process is that identity (and, with `uid`, ran as
   * that uid at its last read); null otherwise (nothing held, another identity, another uid).
   */
  pinned(identity: ProcessIdentity, uid?: number): number | null;
}

let heldInProcess = 0;
let budget: number | undefined;

/** The soft RLIMIT_NOFILE of this process, from /proc/self/limits; null where unreadable. */
export function openFileLimit(limits: string | null = readLimits()): number | null {
  const match = limits === null ? null : /^Max open files\s+(\d+|unlimited)\s/m.exec(limits);
  if (match === null) return null;
  return match[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(match[1]);
}

function readLimits(): string | null {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return null;
  }
}

function processBudget(): number {
  budget ??= Math.min(HELD_STAT_BUDGET, Math.floor((openFileLimit() ?? 0) / 2));
  return budget;
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed: nothing held.
  }
}

/** Closes what a collected reader still held (its map is all the registry keeps alive). */
const collected = new FinalizationRegistry<HeldDescriptors>(({ files, pidfds, closePidfd }) => {
  for (const fd of files) closeQuietly(fd);
  for (const fd of pidfds) closePidfd(fd);
  heldInProcess -= files.size + pidfds.size;
  files.clear();
  pidfds.clear();
});

/** Every descriptor a store holds, for the collected-reader registry: files, and pidfds with their closer. */
interface HeldDescriptors {
  readonly files: Set<number>;
  readonly pidfds: Set<number>;
  readonly closePidfd: (fd: number) => void;
}

/**
 * Opens a pidfd for `pid` (null where the platform, kernel or process says no) and closes one. A
 * pidfd is not Node's to close: a worker thread warns about, and tracks, only what fs.open opened.
 */
export interface PidfdHandles {
  open(pid: number): number | null;
  close(fd: number): void;
}

interface HeldProcess {
  readonly stat: number;
  children: number | null;
  schedstat: number | null;
  readonly pidfd: number | null;
  startTime: string | null;
  uid: number;
}

export function createHeldStats(): HeldStats {
  return createHeldTreeFiles();
}

/** `pidfdHandles`: pin a pidfd to each process held from a read by path (a walk's store); none for a poll's. */
export function createHeldTreeFiles(pidfdHandles?: PidfdHandles): HeldTreeFiles {
  const held = new Map<number, HeldProcess>();
  const closePidfd = (fd: number) => pidfdHandles?.close(fd);
  const all: HeldDescriptors = { files: new Set(), pidfds: new Set(), closePidfd };

  function count(fd: number): void {
    all.files.add(fd);
    heldInProcess += 1;
  }

  function release(fd: number): void {
    all.files.delete(fd);
    heldInProcess -= 1;
    closeQuietly(fd);
  }

  function releasePidfd(fd: number): void {
    all.pidfds.delete(fd);
    heldInProcess -= 1;
    closePidfd(fd);
  }

  function dropProcess(pid: number): void {
    const files = held.get(pid);
    if (files === undefined) return;
    held.delete(pid);
    release(files.stat);
    if (files.children !== null) release(files.children);
    if (files.schedstat !== null) release(files.schedstat);
    if (files.pidfd !== null) releasePidfd(files.pidfd);
  }

  function readByPath(pid: number, buffer: Buffer, keep: boolean): number {
    let fd: number;
    try {
      fd = openSync(`/proc/${pid}/stat`, 'r');
    } catch {
      return -1;
    }
    // Between the stat file's open and its first read: see HeldTreeFiles for why that pins it.
    // Only where both can be held: a pidfd opened to be closed again pins nothing.
    const canHoldBoth = keep && heldInProcess + 2 <= processBudget();
    const pidfd = canHoldBoth && pidfdHandles !== undefined ? pidfdHandles.open(pid) : null;
    let length = -1;
    try {
      length = readSync(fd, buffer, 0, buffer.length, 0);
    } catch {
      // ESRCH: it exited between open and read.
    }
    const needed = pidfd === null ? 1 : 2;
    if (keep && length > 0 && heldInProcess + needed <= processBudget()) {
      held.set(pid, { stat: fd, children: null, schedstat: null, pidfd, startTime: null, uid: -1 });
      count(fd);
      if (pidfd !== null) {
        all.pidfds.add(pidfd);
        heldInProcess += 1;
      }
    } else {
      closeQuietly(fd);
      if (pidfd !== null) closePidfd(pidfd);
    }
    return length;
  }

  function openChildren(pid: number, files: HeldProcess, buffer: Buffer): number {
    let fd: number;
    try {
      fd = openSync(`/proc/${pid}/task/${pid}/children`, 'r');
    } catch {
      return -1;
    }
    let length = -1;
    try {
      length = readSync(fd, buffer, 0, buffer.length, 0);
    } catch {
      // Gone between open and read: the path read will say so too.
    }
    if (length >= 0 && heldInProcess < processBudget()) {
      files.children = fd;
      count(fd);
    } else closeQuietly(fd);
    return length;
  }

  return {
    read(pid, buffer, keep) {
      const files = held.get(pid);
      if (files === undefined) return readByPath(pid, buffer, keep);
      try {
        const length = readSync(files.stat, buffer, 0, buffer.length, 0);
        if (length > 0) return length;
      } catch {
        // ESRCH: the process these files named was reaped.
      }
      dropProcess(pid);
      // The pid may hold a later process now: that one is read, and held, by path.
      return readByPath(pid, buffer, keep);
    },
    readSchedstat(pid, buffer) {
      const files = held.get(pid);
      if (files === undefined) return -1;
      if (files.schedstat === null) {
        if (heldInProcess >= processBudget()) return -1;
        try {
          files.schedstat = openSync(`/proc/${pid}/schedstat`, 'r');
        } catch {
          return -1;
        }
        count(files.schedstat);
      }
      try {
        const length = readSync(files.schedstat, buffer, 0, buffer.length, 0);
        if (length > 0) return length;
      } catch {
        // ESRCH: the process these files named was reaped.
      }
      dropProcess(pid);
      return -1;
    },
    readChildren(pid, buffer) {
      const files = held.get(pid);
      if (files === undefined) return -1;
      if (files.children === null) return openChildren(pid, files, buffer);
      try {
        // An empty list is an answer: a leaf, or a process reaped since its stat was read.
        return readSync(files.children, buffer, 0, buffer.length, 0);
      } catch {
        release(files.children);
        files.children = null;
        return -1;
      }
    },
    noteIdentity(pid, startTime, uid) {
      const files = held.get(pid);
      if (files === undefined) return;
      files.startTime = startTime;
      files.uid = uid;
    },
    pinned(identity, uid) {
      const files = held.get(identity.pid);
      if (files === undefined || files.pidfd === null) return null;
      return files.startTime === identity.startTime && (uid === undefined || files.uid === uid) ? files.pidfd : null;
    },
    release(live) {
      for (const pid of held.keys()) if (!live.has(pid)) dropProcess(pid);
    },
    close() {
      for (const pid of [...held.keys()]) dropProcess(pid);
    },
    closeWhenCollected(owner) {
      collected.register(owner, all);
    },
  };
}

/** How many stat files this thread's readers hold open now (for tests and the bench). */
export function heldStatFiles(): number {
  return heldInProcess;
}
