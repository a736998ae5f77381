/**
 * The contract of the revalidated tree kill. Implemented in kill/kill-tree.ts on top of
 * ownership/ (who belongs to the tree) and signal/ (identity-checked signalling).
 */
import type { KillResult, KillTimelineAction } from '@treewarden/protocol/vocabulary';
import type { ProcessIdentity, TableReader } from '../table/types.js';

/** Default time between SIGTERM to the graceful roots and SIGKILL to every owned group. */
export const DEFAULT_GRACE_MS = 3000;
/** Tree-kill attempts in all before `kill_failed` (the headless agent runner's floor). */
export const KILL_ATTEMPTS = 2;

export type SignalName = 'SIGTERM' | 'SIGKILL' | 'SIGINT' | 'SIGHUP' | 'SIGQUIT' | 'SIGSTOP' | 'SIGCONT' | 0;

/** `sent`; `gone` (ESRCH, or identity no longer matches: nothing was sent); `eperm` (not ours to signal). */
export type SignalResult = 'sent' | 'gone' | 'eperm';

/** Signalling primitives; injectable so tests can reproduce macOS EPERM, Windows and exact races. */
export interface SignalOps {
  /** Signals one process; on Linux through a pidfd opened after an identity check. */
  signalProcess(target: ProcessIdentity, signal: SignalName): SignalResult;
  signalGroup(pgid: number, signal: SignalName): SignalResult;
}

// What a kill can end in and the timeline's actions: the protocol's vocabulary, shared with every UI.
export type { KillResult, KillTimelineAction } from '@treewarden/protocol/vocabulary';

export interface KillTimelineEntry {
  /** Milliseconds since the kill began. */
  readonly atMs: number;
  readonly action: KillTimelineAction;
  readonly pids?: readonly number[];
  readonly groups?: readonly number[];
  readonly detail?: string;
}

export interface KillOutcome {
  readonly result: KillResult;
  readonly target: ProcessIdentity;
  readonly attempts: number;
  readonly killed: readonly ProcessIdentity[];
  readonly survivors: readonly ProcessIdentity[];
  readonly timeline: readonly KillTimelineEntry[];
  /** Present for `refused` and `kill_failed`: the reason, e.g. "identity became uncertain: …". */
  readonly error?: string;
  readonly startedAtMs: number;
  readonly durationMs: number;
}

export interface KillTreeOptions {
  readonly graceMs?: number;
  readonly attempts?: number;
  /** Run cookie (`TREEWARDEN_RUN_ID`): processes carrying it belong to the tree wherever they hid. */
  readonly runId?: string;
  readonly reader?: TableReader;
  readonly signals?: SignalOps;
  /** How long each attempt waits for SIGKILLed members to disappear (default VERIFY_TIMEOUT_MS, 3000). */
  readonly verifyTimeoutMs?: number;
}

export interface TreeOwnerOptions {
  readonly runId?: string;
  readonly reader?: TableReader;
  readonly signals?: SignalOps;
}

/**
 * Owns one tree: remembers every observed member by identity, so descendants stay owned after
 * their parent exits and they are reparented. Implemented in ownership/tree-owner.ts
 * (`createTreeOwner`); `killTree(target, options)` in kill/kill-tree.ts is owner + observe + kill.
 */
export interface TreeOwner {
  readonly root: ProcessIdentity;
  /** Re-reads the table; admits new members through still-owned, still-identical ancestors or the run cookie. */
  observe(): Promise<void>;
  /** Owned identities still alive at the last observation (zombies excluded: they count as stopped). */
  members(): readonly ProcessIdentity[];
  /** Revalidate, SIGTERM graceful roots, wait, SIGKILL every owned group deepest first, verify, retry. */
  kill(options?: KillTreeOptions): Promise<KillOutcome>;
}
