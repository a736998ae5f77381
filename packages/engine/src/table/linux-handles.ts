/**
 * /proc files held open across the reads of one kill, so that re-reading the same member is one
 * pread instead of open + read + close (the path lookup and the close were most of a kill's read
 * cost, and a kill reads each member three or more times: before the freeze, after it, and while
 * it dies). An open /proc/PID file stays bound to the process it was opened for (the kernel's
 * `struct pid`), not to the number: once that process is reaped it answers ESRCH, never the
 * process that recycled the pid. So a held file reads the same identity or nothing, and a file
 * that answers ESRCH is dropped and the path opened anew, which reads whoever holds the pid now,
 * exactly as an unheld read would (the caller's identity check then sees the recycled pid).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { readProcText } from './linux-stat.js';

/** Held files at most (two per member: stat and children); past this, reads open and close as before. */
export const MAX_HELD_FILES = 1024;
/** Any stat line and most `children` lists; a longer file is read through its path. */
const HELD_READ_BYTES = 16 * 1024;

export interface ProcFiles {
  /**
   * `/proc/PID/FILE` as `readProcText` would give it; null when it cannot be read. A held
   * `children` file of a reaped process reads empty rather than failing, so every file of a
   * process is dropped together as soon as any of them (its `stat`, read first) answers ESRCH.
   */
  read(pid: number, file: string): string | null;
}

/** Reads through the path every time: what every reader does outside a kill. */
export const unheldFiles: ProcFiles = { read: (pid, file) => readProcText(`/proc/${pid}/${file}`) };

export interface HeldFiles extends ProcFiles {
  /** How many files are open now. */
  readonly size: number;
  /** Closes every held file; later reads hold files anew. */
  closeAll(): void;
}

export function createHeldFiles(maxFiles = MAX_HELD_FILES): HeldFiles {
  /** Open files by pid, then by file name under /proc/PID. */
  const held = new Map<number, Map<string, number>>();
  let size = 0;
  const buffer = Buffer.allocUnsafe(HELD_READ_BYTES);

  function close(fd: number): void {
    try {
      closeSync(fd);
    } catch {
      // Already closed: nothing held.
    }
  }

  function dropProcess(pid: number): void {
    const files = held.get(pid);
    if (files === undefined) return;
    for (const fd of files.values()) close(fd);
    size -= files.size;
    held.delete(pid);
  }

  /** The text from position 0 of an open file; null when its process is gone (ESRCH) or it is too long. */
  function readHeld(fd: number): string | null {
    try {
      const length = readSync(fd, buffer, 0, HELD_READ_BYTES, 0);
      return length < HELD_READ_BYTES ? buffer.toString('utf8', 0, length) : null;
    } catch {
      return null;
    }
  }

  function open(pid: number, file: string, path: string): string | null {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return null;
    }
    const text = readHeld(fd);
    if (text === null) {
      close(fd);
      // Too long to hold (or gone meanwhile): the path read settles which.
      return readProcText(path);
    }
    const files = held.get(pid) ?? new Map<string, number>();
    files.set(file, fd);
    held.set(pid, files);
    size += 1;
    return text;
  }

  return {
    get size() {
      return size;
    },
    read(pid, file) {
      const path = `/proc/${pid}/${file}`;
      const fd = held.get(pid)?.get(file);
      if (fd !== undefined) {
        const text = readHeld(fd);
        if (text !== null) return text;
        // Its process was reaped: whoever holds the number now is read through the path.
        dropProcess(pid);
      }
      return size < maxFiles ? open(pid, file, path) : readProcText(path);
    },
    closeAll() {
      for (const pid of [...held.keys()]) dropProcess(pid);
    },
  };
}
