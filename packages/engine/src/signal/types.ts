/** The signalling primitives' contract: what can be sent, what a send answers, and the injectable ops. */
import type { ProcessIdentity } from '../table/types.js';

export type SignalName = 'SIGTERM' | 'SIGKILL' | 'SIGINT' | 'SIGHUP' | 'SIGQUIT' | 'SIGSTOP' | 'SIGCONT' | 0;

/** `sent`; `gone` (ESRCH, or identity no longer matches: nothing was sent); `eperm` (not ours to signal). */
export type SignalResult = 'sent' | 'gone' | 'eperm';

/** Signalling primitives; injectable so tests can reproduce macOS EPERM, Windows and exact races. */
export interface SignalOps {
  /** Signals one process; on Linux through a pidfd opened after an identity check. */
  signalProcess(target: ProcessIdentity, signal: SignalName): SignalResult;
  signalGroup(pgid: number, signal: SignalName): SignalResult;
  /**
   * Optional (Linux): signals `target` through a pidfd already pinned to it (a tree walk's, see
   * table/held-stats.ts), with no read: the pidfd names that process or none. Protected targets
   * still throw SignalRefusedError first.
   */
  signalPinned?(target: ProcessIdentity, pidfd: number, signal: SignalName): SignalResult;
}
