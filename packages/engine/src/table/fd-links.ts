/**
 * What each fd of a process points at (`/proc/PID/fd`: one readdir, one readlink per fd), and a
 * per-tick store of such listings. Two judgements of one observer tick want the same listing of
 * a session's members: the port reader (socket inodes, for the dev-server role) and the fd-hog
 * alert (counts, inotify fds). Read apart, every full scan listed each member's fds twice; through
 * one store a tick lists each process once. Linux only: elsewhere there is no such directory.
 */
import { readdirSync, readlinkSync } from 'node:fs';

export interface FdLink {
  /** The fd's number as its directory entry names it. */
  readonly fd: string;
  readonly target: string;
}

/** The process's fds now; null when it is gone or not ours to read (another user's `fd` dir). */
export function readFdLinks(pid: number): FdLink[] | null {
  let names: string[];
  try {
    names = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return null;
  }
  const links: FdLink[] = [];
  for (const fd of names) {
    try {
      links.push({ fd, target: readlinkSync(`/proc/${pid}/fd/${fd}`) });
    } catch {
      // Closed between the listing and the readlink: no longer one of its fds.
    }
  }
  return links;
}

export interface FdListings {
  /** `pid`'s listing, read at most once between two `nextTick` calls. */
  of(pid: number): FdLink[] | null;
  /** `pid`'s listing if one was read since the last `nextTick`; undefined when none was. */
  readThisTick(pid: number): FdLink[] | null | undefined;
  /** Forgets every listing: what follows is a new tick, whose reads must be fresh. */
  nextTick(): void;
}

export function createFdListings(read: (pid: number) => FdLink[] | null = readFdLinks): FdListings {
  let listings = new Map<number, FdLink[] | null>();
  return {
    of(pid) {
      const known = listings.get(pid);
      if (known !== undefined || listings.has(pid)) return known ?? null;
      const links = read(pid);
      listings.set(pid, links);
      return links;
    },
    readThisTick: (pid) => listings.get(pid),
    nextTick() {
      if (listings.size > 0) listings = new Map();
    },
  };
}
