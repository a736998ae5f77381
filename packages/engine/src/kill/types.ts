/**
 * The contract of the revalidated tree kill: its options and its outcome. Implemented in
 * kill/owner-kill.ts (`killOwnedTree(owner, options)`) on top of ownership/ (who belongs to the
 * tree, revalidated observe and signal) and signal/ (identity-checked signalling);
 * kill/kill-tree.ts (`killTree(target, options)`) makes the owner from an identity first.
 */
import type { KillResult, KillTimelineAction } from '@treewarden/protocol/vocabulary';
import type { TreeOwnerOptions } from '../ownership/types.js';
import type { ProcessIdentity } from '../table/types.js';

/** Default time between SIGTERM to the graceful roots and SIGKILL to every owned group. */
export const DEFAULT_GRACE_MS = 3000;
/** Tree-kill attempts in all before `kill_failed`: one retry of a kill that did not take. */
export const KILL_ATTEMPTS = 2;

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

/** How one owner's tree is killed. */
export interface KillOptions {
  readonly graceMs?: number;
  readonly attempts?: number;
  /** How long each attempt waits for SIGKILLed members to disappear (default VERIFY_TIMEOUT_MS, 3000). */
  readonly verifyTimeoutMs?: number;
}

/** `killTree(target, options)`: how the owner is made from the identity, and how its tree is killed. */
export interface KillTreeOptions extends KillOptions, TreeOwnerOptions {}
