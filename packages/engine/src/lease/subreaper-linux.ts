/**
 * Linux child subreaper through koffi (libc FFI from prebuilt binaries: no compiler needed on
 * users' machines). Only the guardian calls this; a failure to load leaves it without a
 * subreaper, and cookie + ancestry ownership still ends every run.
 */
import { createRequire } from 'node:module';
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
