/**
 * Identity-checked signalling. A single process is signalled only if it still has the start time
 * the caller saw; on Linux through a pidfd opened after that check and re-checked after opening,
 * so a pid recycled at any moment of the sequence is never signalled. Elsewhere (or without
 * pidfd) the fallback is process.kill right after the check. ESRCH and a changed identity are
 * `gone`; a kernel EPERM is `eperm`. Protected targets and other users' processes throw
 * SignalRefusedError before anything is sent.
 */
import { constants } from 'node:os';
import { EPERM, ESRCH, loadPidfd, type PidfdApi } from '../runtime/pidfd.js';
import type { ProcessIdentity } from '../table/types.js';
import { assertSameUser, assertSignallableGroup, assertSignallablePid } from './guards.js';
import { readLiveStartTime } from './start-time.js';
import type { SignalName, SignalOps, SignalResult } from './types.js';

export interface SignalOpsOptions {
  /** false forces the process.kill fallback (tests of the fallback path). Default: pidfd when available. */
  readonly usePidfd?: boolean;
  /** Current start time of a live, non-zombie pid, or null. Default: /proc/PID/stat on Linux. */
  readonly readStartTime?: (pid: number) => string | null;
}

export function signalNumber(signal: SignalName): number {
  if (signal === 0) return 0;
  const number = constants.signals[signal];
  if (number === undefined)
    throw new Error(
      `unknown signal ${String(signal)}: use one of SIGTERM, SIGKILL, SIGINT, SIGHUP, SIGQUIT, SIGSTOP, SIGCONT or 0`,
    );
  return number;
}

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** process.kill with ESRCH → gone and EPERM → eperm; anything else is a real error. */
export function killWithResult(target: number, signal: SignalName): SignalResult {
  try {
    process.kill(target, signal);
    return 'sent';
  } catch (error) {
    const code = errnoOf(error);
    if (code === 'ESRCH') return 'gone';
    if (code === 'EPERM') return 'eperm';
    throw error;
  }
}

/** pidfd_send_signal's answer as a SignalResult. */
function pidfdResult(errno: number, target: ProcessIdentity, signal: SignalName): SignalResult {
  if (errno === 0) return 'sent';
  if (errno === ESRCH) return 'gone';
  if (errno === EPERM) return 'eperm';
  throw new Error(`pidfd_send_signal(${target.pid}, ${String(signal)}) failed with errno ${errno}`);
}

function sendThroughPidfd(
  pidfd: PidfdApi,
  target: ProcessIdentity,
  signal: SignalName,
  readStartTime: (pid: number) => string | null,
): SignalResult {
  const opened = pidfd.open(target.pid);
  if ('errno' in opened) {
    if (opened.errno === ESRCH) return 'gone';
    if (opened.errno === EPERM) return 'eperm';
    return killWithResult(target.pid, signal);
  }
  try {
    // The fd pins whatever process held the pid when it was opened; if that is still our
    // identity now, it was our identity at open time too (it existed before the open).
    if (readStartTime(target.pid) !== target.startTime) return 'gone';
    return pidfdResult(pidfd.send(opened.fd, signalNumber(signal)), target, signal);
  } finally {
    pidfd.close(opened.fd);
  }
}

export function createSignalOps(options: SignalOpsOptions = {}): SignalOps {
  // Off Linux there is no cheap per-pid identity read here: the caller's fresh table read is the check.
  const readStartTime = options.readStartTime ?? (process.platform === 'linux' ? readLiveStartTime : undefined);
  const pidfd = options.usePidfd === false ? null : loadPidfd();
  return {
    signalProcess(target, signal) {
      assertSignallablePid(target.pid);
      if (readStartTime !== undefined && readStartTime(target.pid) !== target.startTime) return 'gone';
      assertSameUser(target.pid);
      if (pidfd !== null && readStartTime !== undefined) return sendThroughPidfd(pidfd, target, signal, readStartTime);
      return killWithResult(target.pid, signal);
    },
    signalGroup(pgid, signal) {
      assertSignallableGroup(pgid);
      return killWithResult(-pgid, signal);
    },
    ...(pidfd === null
      ? {}
      : {
          signalPinned(target: ProcessIdentity, fd: number, signal: SignalName): SignalResult {
            assertSignallablePid(target.pid);
            return pidfdResult(pidfd.send(fd, signalNumber(signal)), target, signal);
          },
        }),
  };
}
