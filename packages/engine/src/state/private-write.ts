/**
 * One state file written atomically: a private temp file (its name carries our pid, so two writers
 * never share it), flushed, then renamed over the file, so a crash leaves the old text or the new.
 */
import { closeSync, constants, fsyncSync, renameSync, rmSync, writeSync } from 'node:fs';
import { openPrivateFile } from './trust.js';

export function writePrivateFileAtomically(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  rmSync(temp, { force: true }); // A leftover of a crashed writer that had our pid.
  const fd = openPrivateFile(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL) as number;
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
}
