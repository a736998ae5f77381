/**
 * Children of a process from `/proc/PID/task/TID/children` (CONFIG_PROC_CHILDREN). A child is
 * listed under the thread that forked it, so a multi-threaded parent needs every task read; a
 * single-threaded one (stat field 20 = 1) needs only its own, which saves listing the task dir,
 * and can be read through a file held beside its stat (held-stats.ts): one pread per walk.
 */
import { existsSync, readdirSync } from 'node:fs';
import type { HeldTreeFiles } from './held-stats.js';
import { readHeldChildren, readProcText } from './linux-stat.js';

let childrenFilesExist: boolean | undefined;

/** Whether this kernel exposes children files; asked once. */
export function hasChildrenFiles(): boolean {
  childrenFilesExist ??= existsSync(`/proc/${process.pid}/task/${process.pid}/children`);
  return childrenFilesExist;
}

function parseChildList(text: string | null, into: number[]): void {
  if (text === null) return;
  for (const token of text.split(' ')) {
    if (token.length > 0) into.push(Number(token));
  }
}

function listTasks(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/task`);
  } catch {
    // Gone since its stat was read: no children to report.
    return [];
  }
}

/**
 * Pids of `pid`'s live children at the moment of reading; empty when it is gone. A zombie is
 * read like a multi-threaded process: a thread-group leader shows `Z` as soon as its own thread
 * has exited, while its other threads are still exiting, and the kernel hands the children to
 * one of those threads (not to a reaper) until the last one is gone. Such children are neither
 * under a reaper yet nor anywhere else: skipping the zombie would lose them for a whole read.
 */
export function readChildPids(pid: number, numThreads: number, zombie = false, held?: HeldTreeFiles): number[] {
  const children: number[] = [];
  if (numThreads <= 1 && !zombie) {
    const path = `/proc/${pid}/task/${pid}/children`;
    parseChildList((held === undefined ? null : readHeldChildren(pid, held)) ?? readProcText(path), children);
    return children;
  }
  for (const tid of listTasks(pid)) parseChildList(readProcText(`/proc/${pid}/task/${tid}/children`), children);
  return children;
}
