/**
 * Open file descriptors and inotify watches of one process, from `/proc/PID/fd` (one readdir and
 * one readlink per fd) and the `inotify wd:` lines of `/proc/PID/fdinfo/FD` (read only for inotify
 * fds). Costly beside the table's one stat read, so callers read it only for the processes a view
 * or an alert shows, never on every poll of every process. Linux only: elsewhere null.
 */
import { readFileSync } from 'node:fs';
import type { FdUsage } from '@treewarden/protocol';
import { type FdLink, readFdLinks } from './fd-links.js';

export type { FdUsage };

const INOTIFY_LINK = 'anon_inode:inotify';
const INOTIFY_WATCH_LINE = /^inotify wd:/gm;
const MAX_OPEN_FILES_LINE = /^Max open files\s+(\d+|unlimited)\s/m;

/** The soft `Max open files` of `/proc/PID/limits`; null when unlimited or unreadable. */
export function openFilesLimit(pid: number): number | null {
  try {
    const value = MAX_OPEN_FILES_LINE.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'))?.[1];
    return value === undefined || value === 'unlimited' ? null : Number(value);
  } catch {
    return null;
  }
}

/** `fs.inotify.max_user_watches`: the per-user cap every watch of the user counts against. */
export function maxUserWatches(): number | null {
  try {
    const value = Number(readFileSync('/proc/sys/fs/inotify/max_user_watches', 'utf8').trim());
    return Number.isInteger(value) && value > 0 ? value : null;
  } catch {
    return null;
  }
}

function watchesOf(pid: number, fd: string): number {
  try {
    return readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8').match(INOTIFY_WATCH_LINE)?.length ?? 0;
  } catch {
    return 0; // closed between the readdir and the read
  }
}

/** Usage from a listing of `pid`'s fds (its inotify fds' watches and its limit are read here). */
export function fdUsageOf(pid: number, links: readonly FdLink[]): FdUsage {
  let inotifyWatches = 0;
  for (const { fd, target } of links) if (target === INOTIFY_LINK) inotifyWatches += watchesOf(pid, fd);
  return { open: links.length, inotifyWatches, openLimit: openFilesLimit(pid) };
}

/** The process's fds now; null when it is gone or not ours to read (another user's `fd` dir). */
export function readFdUsage(pid: number): FdUsage | null {
  if (process.platform !== 'linux') return null;
  const links = readFdLinks(pid);
  return links === null ? null : fdUsageOf(pid, links);
}
