/**
 * The floors the table bench measures the snapshot against: bare /proc loops with nothing
 * parsed. They are written out here (not taken from the reader) so a change to the reader's
 * internals never moves the floor it is judged by.
 */
import { closeSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, statSync } from 'node:fs';

const buffer = Buffer.allocUnsafe(16 * 1024);

function procPids(): string[] {
  return readdirSync('/proc').filter((name) => {
    const code = name.charCodeAt(0);
    return code >= 48 && code <= 57;
  });
}

/** open + read into one reused buffer + close; the byte count, or -1 when gone meanwhile. */
function readInto(path: string): number {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return -1;
  }
  try {
    return readSync(fd, buffer, 0, buffer.length, null);
  } catch {
    return -1;
  } finally {
    closeSync(fd);
  }
}

/** readFileSync of every /proc/PID/stat (fstat, two reads and a fresh buffer per file). */
export function readFileStatLoop(): number {
  let read = 0;
  for (const pid of procPids()) {
    try {
      readFileSync(`/proc/${pid}/stat`, 'latin1');
      read += 1;
    } catch {
      // Gone meanwhile.
    }
  }
  return read;
}

/** The floor of the target: every stat read into one reused buffer and decoded as UTF-8. */
export function reusedBufferStatLoop(): number {
  let read = 0;
  for (const pid of procPids()) {
    const length = readInto(`/proc/${pid}/stat`);
    if (length >= 0 && buffer.toString('utf8', 0, length).length >= 0) read += 1;
  }
  return read;
}

/** The syscalls of the floor alone (readdir, then open/read/close per process), nothing decoded. */
export function statSyscallsLoop(): number {
  let read = 0;
  for (const pid of procPids()) if (readInto(`/proc/${pid}/stat`) >= 0) read += 1;
  return read;
}

/** What a snapshot adds per process and per poll on top of the stat read: one cwd readlink. */
export function cwdReadlinkLoop(): number {
  let read = 0;
  for (const pid of procPids()) {
    try {
      readlinkSync(`/proc/${pid}/cwd`);
      read += 1;
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return read;
}

/** What a first read adds per process: argv. */
export function statCmdlineLoop(): number {
  let read = 0;
  for (const pid of procPids()) {
    if (readInto(`/proc/${pid}/stat`) >= 0 && readInto(`/proc/${pid}/cmdline`) >= 0) read += 1;
  }
  return read;
}

/** What a first read also pays per process: the owner (a stat of `/proc/PID`, as the reader takes the uid). */
export function ownerStatLoop(): number {
  let read = 0;
  for (const pid of procPids()) {
    try {
      statSync(`/proc/${pid}`);
      read += 1;
    } catch {
      // Gone meanwhile.
    }
  }
  return read;
}
