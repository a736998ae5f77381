/**
 * The exit watch's thread (see exit-watch.ts): blocked in poll(2) on one pidfd per watched root
 * and an eventfd the owner writes to when the roots change or the watch closes. A pidfd polls
 * readable once its process has exited (a zombie too) and names that process, not its number, so
 * a recycled pid is never taken for the root. Nothing runs between exits and changes: no timer.
 */
import { readFileSync, readSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { parseStatBytes } from '../../table/linux-stat.js';
import type { ExitWatchMessage } from './exit-watch.js';

interface KoffiLike {
  load(path: string): { func(signature: string): (...args: unknown[]) => number };
}

const SYS_PIDFD_OPEN = 434;
const POLLIN = 0x1;
const POLLFD_BYTES = 8;

const koffi = createRequire(import.meta.url)('koffi') as KoffiLike;
const libc = koffi.load('libc.so.6');
const syscall = libc.func('long syscall(long, ...)');
const poll = libc.func('int poll(void *fds, unsigned long nfds, int timeout)');
const closeFd = libc.func('int close(int)');

const { wakeFd, threadName } = workerData as { wakeFd: number; threadName: string };

// Named, so `top -H` and `ps -L` tell it from node's other threads.
try {
  writeFileSync('/proc/thread-self/comm', threadName);
} catch {
  // A kernel without /proc/thread-self (before 3.17): the thread keeps node's name.
}
const port = parentPort;
/** Held roots: key → pidfd. */
const held = new Map<string, number>();
const counter = Buffer.alloc(8);

/** The process's start time as its stat reads now; null when gone. */
function startTicksOf(pid: number): string | null {
  try {
    return parseStatBytes(readFileSync(`/proc/${pid}/stat`))?.startTicks ?? null;
  } catch {
    return null;
  }
}

/**
 * A pidfd for the root when its pid still holds it; null when it exited. The pid is opened first
 * and its start time read after: the root lived before the open (a tick saw it), so a match proves
 * the pidfd names the root; a zombie root polls readable at once.
 */
function openRoot(pid: number, startTime: string): number | null {
  const fd = syscall(SYS_PIDFD_OPEN, 'int', pid, 'uint', 0);
  if (fd < 0) return null;
  if (startTicksOf(pid) !== startTime) {
    closeFd(fd);
    return null;
  }
  return fd;
}

function apply(message: ExitWatchMessage, exited: string[]): boolean {
  if (message.type === 'close') return false;
  const wanted = new Set(message.roots.map((root) => root.key));
  for (const [key, fd] of held) {
    if (wanted.has(key)) continue;
    closeFd(fd);
    held.delete(key);
  }
  for (const root of message.roots) {
    if (held.has(root.key)) continue;
    const fd = openRoot(root.pid, root.startTime);
    if (fd === null) exited.push(root.key);
    else held.set(root.key, fd);
  }
  return true;
}

function run(): void {
  if (port === null) return;
  for (;;) {
    const exited: string[] = [];
    for (let received = receiveMessageOnPort(port); received !== undefined; received = receiveMessageOnPort(port))
      if (!apply(received.message as ExitWatchMessage, exited)) {
        for (const fd of held.values()) closeFd(fd);
        return;
      }
    if (exited.length > 0) port.postMessage(exited);
    const keys = [...held.keys()];
    const fds = Buffer.alloc((keys.length + 1) * POLLFD_BYTES);
    fds.writeInt32LE(wakeFd, 0);
    fds.writeInt16LE(POLLIN, 4);
    keys.forEach((key, index) => {
      fds.writeInt32LE(held.get(key) as number, (index + 1) * POLLFD_BYTES);
      fds.writeInt16LE(POLLIN, (index + 1) * POLLFD_BYTES + 4);
    });
    // Blocks until a root exits or the owner writes the eventfd (EINTR: just look again).
    if (poll(fds, keys.length + 1, -1) <= 0) continue;
    if (fds.readInt16LE(6) !== 0) readSync(wakeFd, counter, 0, 8, null);
    const gone: string[] = [];
    keys.forEach((key, index) => {
      if (fds.readInt16LE((index + 1) * POLLFD_BYTES + 6) === 0) return;
      closeFd(held.get(key) as number);
      held.delete(key);
      gone.push(key);
    });
    if (gone.length > 0) port.postMessage(gone);
  }
}

run();
