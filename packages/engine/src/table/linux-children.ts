/**
 * Children of a process from `/proc/PID/task/TID/children` (CONFIG_PROC_CHILDREN). A child is
 * listed under the thread that forked it, so a multi-threaded parent needs every task read; a
 * single-threaded one (stat field 20 = 1) needs only its own, which saves listing the task dir.
 */
import { existsSync, readdirSync } from 'node:fs';
import { readProcText } from './linux-stat.js';

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

/** Pids of `pid`'s live children at the moment of reading; empty when it is gone. */
export function readChildPids(pid: number, numThreads: number): number[] {
  const children: number[] = [];
  if (numThreads <= 1) {
    parseChildList(readProcText(`/proc/${pid}/task/${pid}/children`), children);
    return children;
  }
  for (const tid of listTasks(pid)) parseChildList(readProcText(`/proc/${pid}/task/${tid}/children`), children);
  return children;
}
