/**
 * The ownership contract: what an owner of one tree answers. Implemented in tree-owner.ts
 * (`createTreeOwner`); the kill (kill/owner-kill.ts `killOwnedTree(owner, options)`) is a
 * function of an owner, built on the revalidated observe and signal the owner exposes.
 */
import type { CookieReader } from '../membership/cookie.js';
import type { SignalOps } from '../signal/types.js';
import type { ProcessIdentity, TableReader } from '../table/types.js';

export type { CookieReader, RunCookies } from '../membership/cookie.js';

export interface TreeOwnerOptions {
  /** Run cookie (`TREEWARDEN_RUN_ID`): processes carrying it belong to the tree wherever they hid. */
  readonly runId?: string;
  readonly reader?: TableReader;
  readonly signals?: SignalOps;
  /** How a cookie is read (default readRunCookies): a test plays an execve's empty environ with it. */
  readonly readCookies?: CookieReader;
}

/**
 * Owns one tree: remembers every observed member by identity, so descendants stay owned after
 * their parent exits and they are reparented.
 */
export interface TreeOwner {
  readonly root: ProcessIdentity;
  /** Re-reads the table; admits new members through still-owned, still-identical ancestors or the run cookie. */
  observe(): Promise<void>;
  /** Owned identities still alive at the last observation (zombies excluded: they count as stopped). */
  members(): readonly ProcessIdentity[];
}
