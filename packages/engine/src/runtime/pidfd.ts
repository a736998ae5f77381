/**
 * Linux pidfd signalling through koffi (no compiler needed). A pidfd refers to one process, not
 * a pid number: once open, a signal sent through it can never reach a process that recycled the
 * pid. Loaded lazily; `loadPidfd()` yields null where the platform, kernel or FFI lacks it, and
 * callers fall back to process.kill after an identity check.
 */
import { createRequire } from 'node:module';

const SYS_PIDFD_SEND_SIGNAL = 424;
const SYS_PIDFD_OPEN = 434;
export const ESRCH = 3;
export const EPERM = 1;

export type PidfdOpenResult = { readonly fd: number } | { readonly errno: number };

export interface PidfdApi {
  open(pid: number): PidfdOpenResult;
  /** 0 on success, else the errno. */
  send(fd: number, signal: number): number;
  close(fd: number): void;
}

interface KoffiLike {
  load(path: string): { func(signature: string): (...args: unknown[]) => number };
  errno(): number;
}

let cached: PidfdApi | null | undefined;

function bind(): PidfdApi | null {
  if (process.platform !== 'linux') return null;
  const koffi = createRequire(import.meta.url)('koffi') as KoffiLike;
  const libc = koffi.load('libc.so.6');
  const syscall = libc.func('long syscall(long, ...)');
  const close = libc.func('int close(int)');
  const api: PidfdApi = {
    open(pid) {
      const fd = syscall(SYS_PIDFD_OPEN, 'int', pid, 'uint', 0);
      return fd >= 0 ? { fd } : { errno: koffi.errno() };
    },
    send(fd, signal) {
      return syscall(SYS_PIDFD_SEND_SIGNAL, 'int', fd, 'int', signal, 'void *', null, 'uint', 0) === 0
        ? 0
        : koffi.errno();
    },
    close(fd) {
      close(fd);
    },
  };
  // Probe once on ourselves: ENOSYS (kernel < 5.3) or a seccomp filter disables the fast path.
  const probe = api.open(process.pid);
  if ('errno' in probe) return null;
  api.close(probe.fd);
  return api;
}

/** The pidfd API, or null when unavailable (not Linux, old kernel, FFI missing). */
export function loadPidfd(): PidfdApi | null {
  if (cached === undefined) {
    try {
      cached = bind();
    } catch {
      cached = null;
    }
  }
  return cached;
}
