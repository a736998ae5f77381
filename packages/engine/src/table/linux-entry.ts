/**
 * Builds a ProcessEntry from /proc, reading the parts that seldom change for an identity (argv,
 * uid) once per identity (the first snapshot pays one extra stat(2) and one cmdline read each),
 * then again only on the caller's slow rotation (a setuid() or an argv rewritten in place).
 * The cache key is (pid, startTime, comm, startcode, arg_start): exec keeps pid and start time but
 * replaces comm, maps a new program text and builds a new stack, so an exec'd process is re-read, a
 * same-named binary too (where the kernel shows startcode and arg_start: this user's processes, or
 * any as root), and a non-PIE one exec'ing itself (Node, Python: text at a fixed address, but the
 * stack's place is random). One that rewrites its own argv (setproctitle: Chromium's zygote
 * children, postgres and nginx workers) keeps all five: the rotation is what shows its new argv.
 */
import { readlinkSync, statSync } from 'node:fs';
import { release } from 'node:os';
import { bootTime, clockTicks, readProcBytes, readProcText, type StatFields } from './linux-stat.js';
import type { ProcessEntry } from './types.js';

const PAGE_SIZE_BYTES = 4096;
/** `PF_KTHREAD` from include/linux/sched.h. */
const PF_KTHREAD = 0x00200000;

export interface CachedIdentity {
  readonly startTicks: string;
  readonly comm: string;
  /** startcode when first seen: a new program text means an exec, whatever comm says. */
  readonly codeStart: number;
  /** arg_start when first seen: a new stack means an exec where startcode stays (a non-PIE binary). */
  readonly argStart: number;
  readonly uid: number;
  readonly args: readonly string[];
  /**
   * False when argv came back empty from a user process: exec sets comm before the new argv is in
   * place, so a read in that window sees no argv, and caching it would keep it empty for good.
   */
  readonly settled: boolean;
  /** False once cwd answered EACCES: permissions hold for the identity, so stop paying for the throw. */
  cwdReadable: boolean;
}

export type IdentityCache = Map<number, CachedIdentity>;

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function isGone(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ESRCH';
}

/**
 * argv from `cmdline`; invalid UTF-8 becomes U+FFFD in that argument only (Buffer's decoder
 * replaces as TextDecoder does, in a quarter of the time for a typical argv).
 */
export function parseCmdline(bytes: Uint8Array): string[] {
  // Every trailing NUL ends the list, not just the last: a process that rewrote its argv in place
  // (postgres's ps display, setproctitle) pads the old area with NULs. An exec'd argv whose last
  // arguments are empty strings loses those, which only the display could show.
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end -= 1;
  if (end === 0) return [];
  return Buffer.from(bytes.buffer, bytes.byteOffset, end).toString('utf8').split('\0');
}

/** Effective uid (as `ps -o uid` shows it) from `status`; null when the process is gone. */
function readStatusUid(pid: number): number | null {
  const status = readProcText(`/proc/${pid}/status`);
  if (status === null) return null;
  const match = /^Uid:\s+\d+\s+(\d+)/m.exec(status);
  return match ? Number(match[1]) : -1;
}

/**
 * Whether the owner of `/proc/PID` is the effective uid for every process: since Linux 4.11
 * (task_dump_owner) the per-process directory keeps the euid even for non-dumpable (setuid,
 * PR_SET_DUMPABLE 0) tasks, "because reading /proc/pid/status is slow enough that procps kept
 * stating /proc/pid". Older kernels show such tasks as root, so there `status` is read.
 */
export function directoryOwnerIsEuid(kernelRelease: string = release()): boolean {
  const [major = 0, minor = 0] = kernelRelease.split('.').map((part) => Number.parseInt(part, 10));
  return major > 4 || (major === 4 && minor >= 11);
}

const ownerIsEuid = directoryOwnerIsEuid();

/**
 * Effective uid; null when the process is gone. One stat(2) of `/proc/PID` (about a third of a
 * `status` read, which the kernel renders whole: memory, signals, capabilities, cpu lists).
 */
export function readUid(pid: number): number | null {
  if (!ownerIsEuid) return readStatusUid(pid);
  try {
    return statSync(`/proc/${pid}`).uid;
  } catch {
    return null;
  }
}

/** Reads what is fixed for the identity; null when the process vanished meanwhile. */
function describeIdentity(pid: number, stat: StatFields): CachedIdentity | null {
  // Kernel threads have no argv and run as root (task_dump_owner says so too): nothing to read.
  if ((stat.flags & PF_KTHREAD) !== 0) return { ...fixedPart(stat, 0, []), settled: true };
  const uid = readUid(pid);
  if (uid === null) return null;
  // Zombies show no argv (their memory is gone); unreadable argv (gone meanwhile, or not ours to
  // read) degrades to none, and the next read retries.
  const zombie = stat.state === 'Z' || stat.state === 'X';
  const cmdline = zombie ? null : readProcBytes(`/proc/${pid}/cmdline`);
  const args = cmdline === null ? [] : parseCmdline(cmdline);
  return { ...fixedPart(stat, uid, args), settled: args.length > 0 || zombie };
}

function fixedPart(stat: StatFields, uid: number, args: readonly string[]): Omit<CachedIdentity, 'settled'> {
  return {
    startTicks: stat.startTicks,
    comm: stat.command,
    codeStart: stat.codeStart,
    argStart: stat.argStart,
    uid,
    args,
    cwdReadable: true,
  };
}

/**
 * The cwd, or null when there is none to read. ENOENT does not mean the process is gone: a
 * process in do_exit drops its fs (exit_fs) well before it turns zombie, and its stat, already
 * read, still stands. Dropping the entry then showed a dying process as gone and, a moment
 * later, back as a zombie (a killed node child read so in a quarter of tries here).
 */
function readCwd(pid: number, identity: CachedIdentity): string | null {
  if (!identity.cwdReadable) return null;
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch (error) {
    if (!isGone(error)) identity.cwdReadable = false;
    return null;
  }
}

/**
 * Whether the last snapshot's cwd still stands for a process that shows no sign of having run
 * since: the same identity and state and not one more tick of CPU. Only the process itself moves
 * its cwd (chdir), which takes running; what this cannot see (a chdir inside one tick, a rename
 * of the directory) is caught by the caller's periodic refresh of every process.
 */
function cwdWasKept(previous: ProcessEntry | undefined, stat: StatFields, cpuTimeMs: number): previous is ProcessEntry {
  return (
    previous !== undefined &&
    previous.cwd !== null &&
    previous.startTime === stat.startTicks &&
    previous.command === stat.command &&
    previous.state === stat.state &&
    previous.cpuTimeMs === cpuTimeMs
  );
}

/** The identity with argv read again (kept as is when unchanged or unreadable), recorded in `cache`. */
function rereadArgs(pid: number, identity: CachedIdentity, cache: IdentityCache): CachedIdentity {
  const cmdline = readProcBytes(`/proc/${pid}/cmdline`);
  const args = cmdline === null ? [] : parseCmdline(cmdline);
  // Empty: gone meanwhile, or mid-exit (its memory released); the argv it had stays the best known.
  if (args.length === 0) return identity;
  if (args.length === identity.args.length && args.every((arg, index) => arg === identity.args[index])) return identity;
  const next = { ...identity, args };
  cache.set(pid, next);
  return next;
}

/** Zombies' argv: one shared empty list, so an unchanged zombie's entry compares equal. */
const NO_ARGS: readonly string[] = Object.freeze([]);

/**
 * One entry from an already-read stat line. `cache` supplies and receives the per-identity part;
 * pass a fresh Map to read everything anew. Returns null when the process vanished mid-read.
 * `withCwd: false` skips the cwd readlink (null cwd) for readers that never look at it.
 * `previous` (this pid's entry from the reader's last snapshot) is returned as is when every
 * field is unchanged: most processes sleep between polls, and an entry that lives exactly one
 * poll is the costly case for V8's young-generation GC (copied, then promoted, then collected).
 * With `previous`, `refreshCwd: false` keeps its cwd for a process that has not run since (see
 * cwdWasKept); the caller decides how often each process is refreshed regardless.
 */
export function buildEntry(
  pid: number,
  stat: StatFields,
  cache: IdentityCache,
  withCwd = true,
  previous?: ProcessEntry,
  refreshCwd = true,
  refreshUid = false,
): ProcessEntry | null {
  let identity = cache.get(pid);
  let described = false;
  if (
    identity === undefined ||
    !identity.settled ||
    identity.startTicks !== stat.startTicks ||
    identity.comm !== stat.command ||
    identity.codeStart !== stat.codeStart ||
    identity.argStart !== stat.argStart
  ) {
    const fresh = describeIdentity(pid, stat);
    if (fresh === null) return null;
    identity = fresh;
    described = true;
    cache.set(pid, identity);
  }
  const zombie = stat.state === 'Z' || stat.state === 'X';
  // On the slow rotation, argv is read again like the uid: a process's rewrite can take less than
  // the clock tick its cpu time counts in, so "it has not run" cannot be told apart reliably. A
  // display stale for up to one rotation is the price of not reading every argv every poll.
  if (!described && !zombie && refreshUid && (stat.flags & PF_KTHREAD) === 0)
    identity = rereadArgs(pid, identity, cache);
  const ticks = clockTicks();
  const args = zombie ? NO_ARGS : identity.args;
  const cpuTimeMs = Math.round((stat.cpuTicks * 1000) / ticks);
  // A setuid() without exec changes the uid under the cache. Only running can do it, so a process
  // that ran since the last snapshot is re-read; one that did it inside a tick waits for the
  // caller's slow rotation (`refreshUid`). Decisions never rest on this: the kill guard and the
  // cookie search read the owner afresh.
  if (!described && !zombie && previous !== undefined && (refreshUid || previous.cpuTimeMs !== cpuTimeMs)) {
    const uid = (stat.flags & PF_KTHREAD) === 0 ? readUid(pid) : identity.uid;
    if (uid !== null && uid !== identity.uid) {
      identity = { ...identity, uid };
      cache.set(pid, identity);
    }
  }
  const cwd =
    zombie || !withCwd
      ? null
      : !refreshCwd && cwdWasKept(previous, stat, cpuTimeMs)
        ? previous.cwd
        : readCwd(pid, identity);
  const childrenCpuTimeMs = Math.round((stat.childCpuTicks * 1000) / ticks);
  const rssBytes = stat.rssPages * PAGE_SIZE_BYTES;
  if (
    previous !== undefined &&
    previous.startTime === stat.startTicks &&
    previous.command === stat.command &&
    previous.state === stat.state &&
    previous.ppid === stat.ppid &&
    previous.pgid === stat.pgid &&
    previous.sid === stat.sid &&
    previous.uid === identity.uid &&
    previous.args === args &&
    previous.cwd === cwd &&
    previous.cpuTimeMs === cpuTimeMs &&
    previous.childrenCpuTimeMs === childrenCpuTimeMs &&
    previous.rssBytes === rssBytes
  )
    return previous;
  return {
    pid,
    startTime: stat.startTicks,
    ppid: stat.ppid,
    pgid: stat.pgid,
    sid: stat.sid,
    state: stat.state,
    uid: identity.uid,
    command: stat.command,
    args,
    cwd,
    cpuTimeMs,
    childrenCpuTimeMs,
    rssBytes,
    startedAtMs: bootTime() + Math.round((Number(stat.startTicks) * 1000) / ticks),
  };
}
