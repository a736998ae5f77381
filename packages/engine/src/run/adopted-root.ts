/**
 * A run's root that this process did not spawn: the guardian that hosted it died, and the holder
 * took its supervision over. Its exit is found by polling. Where the holder is a child subreaper
 * (the CLI on Linux) the orphaned root was re-parented to it: its exit status is read by pid, and
 * until then the pid stays unreaped, so it cannot be recycled. Elsewhere the root belongs to
 * pid 1 or another subreaper: its end is seen (gone, zombie, or a new start time) but its status
 * is not ours to read.
 */
import { constants } from 'node:os';
import { loadPidfd } from '../runtime/pidfd.js';
import { isZombie, type ProcessIdentity } from '../table/types.js';
import type { RootExit, RootProcess, RootStat } from './root-process.js';

/** How often an adopted root's exit is looked for. */
export const ADOPTED_ROOT_POLL_MS = 200;
/** Why an adopted root's outcome has no exit status. */
export const UNKNOWN_EXIT_NOTE = 'the root ended after its guardian died; its exit status was not ours to read';

/** What `waitpid(pid, WNOHANG)` said about one child of ours. */
export type ChildWait =
  | { readonly kind: 'running' }
  | { readonly kind: 'exited'; readonly exitCode: number | null; readonly signal: string | null }
  /** Not (or no longer) our child: its status is someone else's to read. */
  | { readonly kind: 'not_child' };

export interface AdoptedRootOptions {
  readonly identity: ProcessIdentity;
  readonly readStat: (pid: number) => RootStat | null;
  /** Reaps the root by pid when it is our child (we are its subreaper); absent otherwise. */
  readonly waitChild?: (pid: number) => ChildWait;
  readonly now?: () => number;
  readonly pollMs?: number;
}

export interface AdoptedRootExit extends RootExit {
  /** Set when the exit status could not be read (only the end itself was seen). */
  readonly note?: string;
}

export function adoptRootProcess(options: AdoptedRootOptions): RootProcess {
  const { identity, readStat } = options;
  const now = options.now ?? Date.now;
  let exitRecord: AdoptedRootExit | null = null;
  let resolveExit: (exit: RootExit) => void = () => {};
  const exited = new Promise<RootExit>((resolve) => {
    resolveExit = resolve;
  });
  const record = (exit: AdoptedRootExit) => {
    if (exitRecord !== null) return;
    exitRecord = exit;
    clearInterval(timer);
    resolveExit(exit);
  };
  const unknownEnd = () => record({ exitCode: null, signal: null, atMs: now(), note: UNKNOWN_EXIT_NOTE });

  /** One look: reap it if it is our child, else see whether this identity still runs. */
  const check = () => {
    if (exitRecord !== null) return;
    const waited = options.waitChild?.(identity.pid) ?? { kind: 'not_child' as const };
    if (waited.kind === 'exited') return record({ exitCode: waited.exitCode, signal: waited.signal, atMs: now() });
    if (waited.kind === 'running') return;
    const entry = readStat(identity.pid);
    if (entry === null || entry.startTime !== identity.startTime || isZombie(entry)) unknownEnd();
  };
  const timer = setInterval(check, options.pollMs ?? ADOPTED_ROOT_POLL_MS);
  // The run's own timers hold the process while it is supervised; a root that never ends (stuck
  // in uninterruptible sleep after kill_failed) must not keep a harness alive forever.
  timer.unref();
  check();

  return {
    pid: identity.pid,
    identity,
    adoptIdentity: () => false,
    exit: () => exitRecord,
    exited,
    hasExitStatus() {
      check();
      if (exitRecord !== null) return true;
      const entry = readStat(identity.pid);
      return entry !== null && entry.startTime === identity.startTime && isZombie(entry);
    },
    signalDirect(signal) {
      check();
      return exitRecord === null && signalIdentity(identity, signal, readStat);
    },
    waitExit(ms) {
      check();
      if (exitRecord !== null) return Promise.resolve(exitRecord);
      return new Promise((resolve) => {
        const timeout = setTimeout(() => resolve(null), ms);
        void exited.then((exit) => {
          clearTimeout(timeout);
          resolve(exit);
        });
      });
    },
  };
}

/**
 * Signals one identity through a pidfd opened before the identity check, so the check and the
 * signal cannot race with pid reuse. Without pidfd nothing is sent: the tree kill's own guarded
 * path remains.
 */
function signalIdentity(
  identity: ProcessIdentity,
  signal: NodeJS.Signals,
  readStat: (pid: number) => RootStat | null,
): boolean {
  const pidfd = loadPidfd();
  if (pidfd === null) return false;
  const opened = pidfd.open(identity.pid);
  if ('errno' in opened) return false;
  try {
    if (readStat(identity.pid)?.startTime !== identity.startTime) return false;
    return pidfd.send(opened.fd, constants.signals[signal]) === 0;
  } finally {
    pidfd.close(opened.fd);
  }
}
