/**
 * Linux child subreaper through koffi (libc FFI from prebuilt binaries: no compiler needed on
 * users' machines). The guardian calls this; so does a holder that asked to adopt its runs if
 * its guardian dies (the CLI). A failure to load leaves the caller without a subreaper, and
 * cookie + ancestry ownership still ends every run.
 */
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import type { ChildWait } from '../run/adopted-root.js';
import type { Containment } from './containment.js';

const PR_SET_CHILD_SUBREAPER = 36;
const WNOHANG = 1;

interface Libc {
  prctl(option: number, arg2: number, arg3: number, arg4: number, arg5: number): number;
  waitpid(pid: number, status: number[], options: number): number;
}

interface KoffiModule {
  load(path: string): { func(definition: string): (...args: unknown[]) => unknown };
}

function loadLibc(): Libc | null {
  try {
    const koffi = createRequire(import.meta.url)('koffi') as KoffiModule;
    const libc = koffi.load('libc.so.6');
    const prctl = libc.func('int prctl(int, unsigned long, unsigned long, unsigned long, unsigned long)');
    const waitpid = libc.func('int waitpid(int, _Out_ int *, int)');
    return {
      prctl: (...args) => prctl(...args) as number,
      waitpid: (pid, status, options) => waitpid(pid, status, options) as number,
    };
  } catch {
    return null;
  }
}

export function createLinuxSubreaper(): Containment | null {
  const libc = loadLibc();
  if (libc === null || libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) !== 0) return null;
  return {
    kind: 'linux-subreaper',
    active: true,
    adopt: () => {},
    reap(zombiePids) {
      const reaped: number[] = [];
      for (const pid of zombiePids) {
        const status = [0];
        if (libc.waitpid(pid, status, WNOHANG) === pid) reaped.push(pid);
      }
      return reaped;
    },
  };
}

export interface ChildWaiter {
  /** Reaps `pid` if it exited, by pid only (never `waitpid(-1)`, which would steal libuv's statuses). */
  wait(pid: number): ChildWait;
}

const SIGNAL_NAMES = new Map(Object.entries(constants.signals).map(([name, number]) => [number, name]));

/** Decodes a wait status the way WIFEXITED/WEXITSTATUS/WTERMSIG do. */
export function decodeWaitStatus(status: number): { exitCode: number | null; signal: string | null } {
  const termSignal = status & 0x7f;
  if (termSignal === 0) return { exitCode: (status >> 8) & 0xff, signal: null };
  return { exitCode: null, signal: SIGNAL_NAMES.get(termSignal) ?? `SIG${termSignal}` };
}

/**
 * Makes this process a child subreaper and returns a by-pid waiter for the children it adopts,
 * or null where that is not possible (not Linux, FFI missing, prctl refused).
 */
export function becomeSubreaper(): ChildWaiter | null {
  if (process.platform !== 'linux') return null;
  const libc = loadLibc();
  if (libc === null || libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) !== 0) return null;
  return {
    wait(pid) {
      const status = [0];
      const result = libc.waitpid(pid, status, WNOHANG);
      if (result === 0) return { kind: 'running' };
      if (result !== pid) return { kind: 'not_child' };
      return { kind: 'exited', ...decodeWaitStatus(status[0] ?? 0) };
    },
  };
}
