/**
 * The run's root process as a ChildProcess of ours. libuv reaps it (waitpid) and Node emits 'exit'
 * in the same synchronous callback, so while 'exit' has not fired the pid is still unreaped: it
 * cannot have been recycled, and a direct signal reaches the worker or its zombie, never a
 * stranger. Every direct signal here is guarded by that fact.
 */
import type { ChildProcess } from 'node:child_process';
import { isZombie, type ProcessEntry, type ProcessIdentity } from '../table/types.js';

/** What the root needs from a table read: its start time (identity) and state (zombie or not). */
export type RootStat = Pick<ProcessEntry, 'startTime' | 'state'>;

export interface RootExit {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly atMs: number;
}

export interface RootProcess {
  readonly pid: number;
  /** Read right after spawn (Linux), or later by `adoptIdentity` (platforms read through `ps`). */
  readonly identity: ProcessIdentity | null;
  /** Records an identity read asynchronously; refused (false) once 'exit' fired, as the pid may be reused. */
  adoptIdentity(startTime: string): boolean;
  /** Set once 'exit' fired (the status has been read and the pid released). */
  exit(): RootExit | null;
  readonly exited: Promise<RootExit>;
  /** True when the status is read, or ready to be read: the worker is a zombie awaiting our reap. */
  hasExitStatus(): boolean;
  /** Signals the root directly, only while it is still unreaped. Returns whether a signal was sent. */
  signalDirect(signal: NodeJS.Signals): boolean;
  /** Resolves with the exit, or null when it did not come within `ms`. */
  waitExit(ms: number): Promise<RootExit | null>;
}

export function createRootProcess(
  child: ChildProcess,
  pid: number,
  readStat: (pid: number) => RootStat | null,
  now: () => number = Date.now,
): RootProcess {
  const entry = readStat(pid);
  let identity: ProcessIdentity | null = entry === null ? null : { pid, startTime: entry.startTime };
  let exitRecord: RootExit | null = null;
  const exited = new Promise<RootExit>((resolve) => {
    child.once('exit', (exitCode, signal) => {
      exitRecord = { exitCode, signal, atMs: now() };
      resolve(exitRecord);
    });
  });

  return {
    pid,
    get identity() {
      return identity;
    },
    adoptIdentity(startTime) {
      if (exitRecord !== null) return false;
      identity = { pid, startTime };
      return true;
    },
    exit: () => exitRecord,
    exited,
    hasExitStatus() {
      if (exitRecord !== null) return true;
      // Unreaped, so /proc/PID is still this worker: a zombie has exited and its status waits.
      const current = readStat(pid);
      return current !== null && isZombie(current);
    },
    signalDirect(signal) {
      if (exitRecord !== null) return false;
      try {
        return child.kill(signal);
      } catch {
        return false;
      }
    },
    waitExit(ms) {
      if (exitRecord !== null) return Promise.resolve(exitRecord);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(null), ms);
        void exited.then((record) => {
          clearTimeout(timer);
          resolve(record);
        });
      });
    },
  };
}
