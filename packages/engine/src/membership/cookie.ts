/**
 * Run cookies: every run's environment carries TREEWARDEN_RUN_ID (and TREEWARDEN_LEASE_ID), which
 * every descendant inherits across setsid and double forks. Reading /proc/PID/environ finds a
 * run's processes wherever they hid. Linux only (readable for the same user); elsewhere null.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { readLiveStartTime } from '../signal/start-time.js';
import { readUid } from '../table/linux-entry.js';
import { readStatFields } from '../table/linux-stat.js';
import type { ProcessIdentity, ProcessTable } from '../table/types.js';
import { identityKey, isZombie } from '../table/types.js';

/** Environment cookies every run carries; inherited across setsid and double forks. */
export const RUN_ID_ENV = 'TREEWARDEN_RUN_ID';
export const LEASE_ID_ENV = 'TREEWARDEN_LEASE_ID';

/** The run and lease ids a process carries in its environment. */
export interface RunCookies {
  readonly runId?: string;
  readonly leaseId?: string;
}

/** Reads a pid's cookies: readRunCookies, or a stand-in where a test plays an exact race. */
export type CookieReader = (pid: number) => RunCookies | null;

/** Environments are usually a few KiB; the cookies sit wherever the launcher put them, so read generously but bounded. */
export const MAX_ENVIRON_BYTES = 256 * 1024;

/** One buffer for every environ read (reads are synchronous): no 256 KiB allocation per process. */
let environBuffer: Buffer | null = null;

/**
 * Reads at most `maxBytes` of /proc/PID/environ; null when unreadable (gone, zombie, other user).
 * The result is a view of a shared buffer, valid until the next call: copy what must be kept.
 */
export function readEnvironBounded(pid: number, maxBytes = MAX_ENVIRON_BYTES): Buffer | null {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/environ`, 'r');
  } catch {
    return null;
  }
  try {
    if (environBuffer === null || environBuffer.length < maxBytes) environBuffer = Buffer.allocUnsafe(maxBytes);
    const buffer = environBuffer;
    let length = 0;
    while (length < maxBytes) {
      const read = readSync(fd, buffer, length, maxBytes - length, null);
      if (read === 0) break;
      length += read;
    }
    return buffer.subarray(0, length);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * The run/lease cookies in PID's environment, `{}` when it carries none, null when unreadable.
 * An empty environ counts as unreadable: it is what a read in the middle of an execve returns
 * (the new image's environment is not mapped yet), not a fact about the process.
 */
export function readRunCookies(pid: number): RunCookies | null {
  if (process.platform !== 'linux') return null;
  const environ = readEnvironBounded(pid);
  if (environ === null || environ.length === 0) return null;
  const cookies: { runId?: string; leaseId?: string } = {};
  for (const variable of environ.toString('latin1').split('\0')) {
    if (variable.startsWith(`${RUN_ID_ENV}=`)) cookies.runId = variable.slice(RUN_ID_ENV.length + 1);
    else if (variable.startsWith(`${LEASE_ID_ENV}=`)) cookies.leaseId = variable.slice(LEASE_ID_ENV.length + 1);
  }
  return cookies;
}

/** `PF_KTHREAD` (stat field 9): kernel threads have no environment at all, ever. */
const PF_KTHREAD = 0x00200000;

export interface CarrierSearch {
  /** Identities not to read (already classified by the caller): an environment never changes. */
  readonly skip?: (identity: ProcessIdentity) => boolean;
  /**
   * Receives the identities whose environ could not be read this time (mid-exec, gone meanwhile):
   * they were not classified and must not be remembered as non-carriers. Kernel threads, whose
   * environ is always empty, are classified (no cookie) and never land here.
   */
  readonly unread?: Map<string, ProcessIdentity>;
  /**
   * The run root's start time (clock ticks on Linux): every carrier descends from the root, so
   * a process that started before it is no carrier and its environ is not read.
   */
  readonly notBefore?: string;
  readonly readCookies?: CookieReader;
  /**
   * Receives carriers that now run as another user (a setuid() after the fork: a daemon dropping
   * privileges). They are never admitted, so never signalled: the caller reports them. Only root
   * can read another user's environ, so only root can find them.
   */
  readonly otherUsers?: Map<string, OtherUserCarrier>;
  /** The effective uid of a live process (tests inject); null when it is gone. */
  readonly readOwner?: (pid: number) => number | null;
}

/** A process carrying the run's cookie that runs as another user than ours. */
export interface OtherUserCarrier extends ProcessIdentity {
  readonly uid: number;
}

function isKernelThread(pid: number): boolean {
  const flags = readStatFields(pid)?.flags ?? 0;
  return (flags & PF_KTHREAD) !== 0;
}

/** Live processes in `table` that carry `TREEWARDEN_RUN_ID=<runId>` (see CarrierSearch). */
export function findCookieCarriers(runId: string, table: ProcessTable, search: CarrierSearch = {}): ProcessIdentity[] {
  const carriers: ProcessIdentity[] = [];
  // Environments are read from /proc: elsewhere there is nothing to classify (nor to wait for).
  if (runId.length === 0 || (search.readCookies === undefined && process.platform !== 'linux')) return carriers;
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const oldest = search.notBefore === undefined ? Number.NaN : Number(search.notBefore);
  const readCookies = search.readCookies ?? readRunCookies;
  for (const entry of table.entries.values()) {
    if (entry.pid === process.pid || isZombie(entry) || search.skip?.(entry)) continue;
    // Only our own user's processes can be ours to end. Root reads the others too, to report a
    // carrier that dropped to another user (never to signal it).
    if (uid !== undefined && entry.uid !== uid && (uid !== 0 || search.otherUsers === undefined)) continue;
    if (Number(entry.startTime) < oldest) continue;
    const cookies = readCookies(entry.pid);
    const key = identityKey(entry);
    if (cookies !== null || isKernelThread(entry.pid)) search.unread?.delete(key);
    else search.unread?.set(key, { pid: entry.pid, startTime: entry.startTime });
    if (cookies?.runId !== runId) continue;
    // The environ read came after the table read: confirm the pid was not recycled in between.
    if (readLiveStartTime(entry.pid) !== entry.startTime) continue;
    const identity = { pid: entry.pid, startTime: entry.startTime };
    // The table's uid is cached per identity; a setuid() without exec changes it under the cache.
    const owner = uid === undefined ? uid : (search.readOwner ?? readUid)(entry.pid);
    if (owner === undefined || owner === uid) carriers.push(identity);
    else if (owner !== null && readLiveStartTime(entry.pid) === entry.startTime)
      search.otherUsers?.set(key, { ...identity, uid: owner });
  }
  return carriers;
}
