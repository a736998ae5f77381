/**
 * Waiting, bounded, for one process identity to exit. Linux: a pidfd (`pidfd_open` through koffi,
 * as lease/subreaper-linux.ts loads libc) polled in koffi's worker thread, so the exit is seen the
 * instant it happens; elsewhere, or when the FFI is missing, the start time is polled. A pid
 * reused meanwhile counts as exited: the identity is checked after the pidfd is open.
 */
import { createRequire } from 'node:module';
import { pollUntil } from '../../runtime/wait.js';
import { readLiveStartTime } from '../../signal/start-time.js';
import type { ProcessIdentity } from '../../table/types.js';

const SYS_PIDFD_OPEN = 434;
const POLLIN = 1;
/** Poll fallback: often enough that leftovers go within the bench's 3 s, cheap enough for a 30 s wait. */
export const EXIT_POLL_INTERVAL_MS = 50;

interface PidfdLibc {
  openPidfd(pid: number): number;
  /** Resolves with poll()'s result: >0 readable (exited), 0 timed out, <0 error. */
  pollReadable(fd: number, timeoutMs: number): Promise<number>;
  close(fd: number): void;
}

interface KoffiFunction {
  (...args: unknown[]): unknown;
  async(...args: unknown[]): void;
}

interface KoffiModule {
  load(path: string): { func(definition: string): KoffiFunction };
  struct(name: string, fields: Record<string, string>): unknown;
}

let cached: PidfdLibc | null | undefined;

function loadPidfd(): PidfdLibc | null {
  if (cached !== undefined) return cached;
  cached = null;
  if (process.platform !== 'linux') return cached;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as KoffiModule;
    const libc = koffi.load('libc.so.6');
    koffi.struct('tw_pollfd', { fd: 'int', events: 'short', revents: 'short' });
    const syscall = libc.func('long syscall(long, int, unsigned int)');
    const poll = libc.func('int poll(_Inout_ tw_pollfd *, unsigned long, int)');
    const close = libc.func('int close(int)');
    cached = {
      openPidfd: (pid) => Number(syscall(SYS_PIDFD_OPEN, pid, 0)),
      pollReadable: (fd, timeoutMs) =>
        new Promise((resolve) => {
          const fds = { fd, events: POLLIN, revents: 0 };
          poll.async(fds, 1, timeoutMs, (error: unknown, result: unknown) => resolve(error ? -1 : Number(result)));
        }),
      close: (fd) => {
        close(fd);
      },
    };
  } catch {
    cached = null;
  }
  return cached;
}

/** A zombie counts as exited (readLiveStartTime answers null for it). Linux only, as the reaper is. */
function isGone(identity: ProcessIdentity): boolean {
  return readLiveStartTime(identity.pid) !== identity.startTime;
}

/** True once the identity is gone (exited, zombie, or its pid reused); false when it outlived `deadlineMs`. */
export async function waitForExit(identity: ProcessIdentity, deadlineMs: number): Promise<boolean> {
  const libc = loadPidfd();
  const fd = libc === null ? -1 : libc.openPidfd(identity.pid);
  if (libc === null || fd < 0) {
    const gone = await pollUntil(() => isGone(identity), { deadlineMs, intervalMs: EXIT_POLL_INTERVAL_MS });
    return gone === true;
  }
  try {
    // Opened after the pid could have been reused: the identity decides, not the pidfd.
    if (isGone(identity)) return true;
    const ready = await libc.pollReadable(fd, deadlineMs);
    return ready > 0 || isGone(identity);
  } finally {
    libc.close(fd);
  }
}
