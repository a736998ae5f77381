/**
 * Linux process table read straight from /proc, synchronously: measured here, sync reads beat
 * async `fs` by 2–4× for thousands of tiny files. A process that vanishes mid-read is skipped.
 *
 * The stable, uncached entry points live here (other modules import them); the cached snapshot
 * and the owned-tree refresh are in linux-reader.ts.
 */
import { buildEntry } from './linux-entry.js';
import { createLinuxReader, type LinuxReader } from './linux-reader.js';
import { readStatFields } from './linux-stat.js';
import type { ProcessEntry, ProcessTable } from './types.js';

export { bootTime, clockTicks, listPids, parseProcStat, type StatFields } from './linux-stat.js';

/** Reads one process afresh (nothing cached), or null when it is gone (or was never there). */
export function readProcEntry(pid: number): ProcessEntry | null {
  const stat = readStatFields(pid);
  return stat === null ? null : buildEntry(pid, stat, new Map());
}

let sharedReader: LinuxReader | undefined;

/** A full snapshot through one module-wide cached reader (argv and uid read once per identity). */
export function readProcTable(): ProcessTable {
  sharedReader ??= createLinuxReader();
  return sharedReader.snapshot();
}
