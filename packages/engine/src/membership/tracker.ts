/**
 * The incremental use of the membership model (the tree owner, the host's snapshot): members
 * remembered by identity with the evidence that admitted them, kept for their lifetime; a new
 * process is admitted only as a child of a still-identical member (the ppid chain in the same
 * snapshot) or by carrying the run cookie. Pure except for the cookie read.
 */

import { indexChildren } from '../table/trees.js';
import type { ProcessEntry, ProcessIdentity, ProcessTable } from '../table/types.js';
import { identityKey, isZombie } from '../table/types.js';
import { type CarrierSearch, findCookieCarriers, type OtherUserCarrier } from './cookie.js';
import { type AdmissionScope, admitBy, type Evidence } from './evidence.js';
import { callerLine, neverMember, releasedTrees } from './exclusions.js';

export interface Member {
  readonly pid: number;
  readonly startTime: string;
  ppid: number;
  pgid: number;
  sid: number;
  /** Short name as last read ('' for a root not read yet). */
  command: string;
  /**
   * The session this member was seen in while the session's leader was an owned member (or the
   * member itself): every process in such a session descends from that leader. Kept while the
   * member stays in it (a process leaves a session only by setsid, becoming its own leader).
   */
  vouchedSid: number | null;
  /** Distance from the root along observed ancestry (cookie finds: one below their known parent, or 1). */
  depth: number;
  zombie: boolean;
  /** Why it was admitted; never changes while it lives (evidence must not change when a parent exits). */
  readonly evidence: Evidence;
}

export interface Membership {
  readonly members: Map<number, Member>;
  /** Groups led by an owned process when observed. A pgid cannot be reused while the group has members. */
  readonly groups: Set<number>;
  /** Identities already read and found not to carry the cookie (environments do not change). */
  readonly nonCarriers: Set<string>;
  /**
   * Identities whose environ the last cookie sweep could not read (an execve in progress reads
   * empty): neither carriers nor non-carriers yet. See ownership/settle-cookies.ts.
   */
  readonly unreadCookies: Map<string, ProcessIdentity>;
  /** Identities the run let go on purpose: never members again, nor anything they start. */
  readonly released: Map<string, ProcessIdentity>;
  /** Cookie carriers that run as another user now (see CarrierSearch.otherUsers): reported, never members. */
  readonly otherUserCarriers: Map<string, OtherUserCarrier>;
}

/** A membership anchored at `root`, or (null) one whose root is seeded once known (`seedRoot`). */
export function createMembership(root: ProcessIdentity | null): Membership {
  const membership: Membership = {
    members: new Map(),
    groups: new Set(),
    nonCarriers: new Set(),
    unreadCookies: new Map(),
    released: new Map(),
    otherUserCarriers: new Map(),
  };
  if (root !== null) {
    const evidence: Evidence = {
      kind: 'root',
      root: { pid: root.pid, startTime: root.startTime },
      runId: null,
      leaseId: null,
    };
    membership.members.set(root.pid, {
      ...root,
      ppid: 0,
      pgid: 0,
      sid: 0,
      command: '',
      vouchedSid: null,
      depth: 0,
      zombie: false,
      evidence,
    });
  }
  return membership;
}

/** Owned and still the same process in `table`. */
export function ownsEntry(membership: Membership, entry: ProcessEntry): boolean {
  return membership.members.get(entry.pid)?.startTime === entry.startTime;
}

function admit(membership: Membership, entry: ProcessEntry, depth: number, evidence: Evidence): Member {
  const member: Member = {
    pid: entry.pid,
    startTime: entry.startTime,
    ppid: entry.ppid,
    pgid: entry.pgid,
    sid: entry.sid,
    command: entry.command,
    vouchedSid: null,
    depth,
    zombie: isZombie(entry),
    evidence,
  };
  membership.members.set(entry.pid, member);
  return member;
}

/** Admits `entry` as the root when it is `root`, present and not yet a member (a root known late). */
export function seedRoot(membership: Membership, root: ProcessIdentity, entry: ProcessEntry | undefined): void {
  if (entry === undefined || ownsEntry(membership, entry) || membership.released.has(identityKey(entry))) return;
  const [evidence] = admitBy(
    'root',
    entry,
    trackerScope(root, () => null),
  );
  if (evidence !== undefined) admit(membership, entry, 0, evidence);
}

/** Updates members that are still present and identical; returns those whose pid now shows another start time. */
export function refreshMembers(
  membership: Membership,
  table: ProcessTable,
): { recycled: [Member, ProcessEntry][]; vanished: Member[] } {
  const recycled: [Member, ProcessEntry][] = [];
  const vanished: Member[] = [];
  for (const member of membership.members.values()) {
    const entry = table.entries.get(member.pid);
    if (entry === undefined) vanished.push(member);
    else if (entry.startTime !== member.startTime) recycled.push([member, entry]);
    else {
      member.ppid = entry.ppid;
      member.pgid = entry.pgid;
      if (member.sid !== entry.sid) member.vouchedSid = null;
      member.sid = entry.sid;
      member.command = entry.command;
      member.zombie = isZombie(entry);
      if (!member.zombie && entry.pgid === entry.pid) membership.groups.add(entry.pgid);
    }
  }
  return { recycled, vanished };
}

/**
 * Marks members whose session leader is owned and identical in `table` (see Member.vouchedSid).
 * Sids are compared only where the platform reports them (sid 0 means unknown).
 */
export function vouchSessions(membership: Membership, table: ProcessTable): void {
  for (const member of membership.members.values()) {
    const entry = table.entries.get(member.pid);
    if (entry === undefined || entry.startTime !== member.startTime || entry.sid <= 0) continue;
    const leader = table.entries.get(entry.sid);
    if (leader !== undefined && ownsEntry(membership, leader)) member.vouchedSid = entry.sid;
  }
}

/** Drops groups no owned member is in any more: once empty, a pgid may be reused by a stranger. */
export function pruneGroups(membership: Membership, table: ProcessTable): void {
  const inUse = new Set<number>();
  for (const member of membership.members.values()) {
    if (table.entries.get(member.pid)?.startTime === member.startTime) inUse.add(member.pgid);
  }
  for (const pgid of membership.groups) if (!inUse.has(pgid)) membership.groups.delete(pgid);
}

/** Lets identities go (`keepDescendants`): dropped now, and with what they start, never admitted again. */
export function releaseMembers(membership: Membership, identities: readonly ProcessIdentity[]): void {
  for (const identity of identities) {
    membership.released.set(identityKey(identity), { pid: identity.pid, startTime: identity.startTime });
    if (ownsEntry(membership, identity as ProcessEntry)) membership.members.delete(identity.pid);
  }
}

/** Pids never admitted from `table`: the caller's line, and released trees (also dropped as members). */
function exclusionsIn(
  membership: Membership,
  table: ProcessTable,
  children: ReadonlyMap<number, readonly number[]>,
): Set<number> {
  const released =
    membership.released.size === 0
      ? new Set<number>()
      : releasedTrees(membership.released.values(), table.entries, children);
  for (const pid of released)
    if (ownsEntry(membership, table.entries.get(pid) as ProcessEntry)) membership.members.delete(pid);
  for (const pid of callerLine(table.entries)) released.add(pid);
  return released;
}

/**
 * Admits every descendant of a live, identical member (breadth first, so depths are shortest
 * paths). `children` is `indexChildren(table.entries)`, passed in when several memberships
 * update from the same table.
 */
export function admitDescendants(
  membership: Membership,
  table: ProcessTable,
  children: ReadonlyMap<number, readonly number[]> = indexChildren(table.entries),
): ProcessIdentity[] {
  const excluded = exclusionsIn(membership, table, children);
  const scope = trackerScope(null, (entry) => {
    const parent = membership.members.get(entry.ppid);
    if (parent === undefined || table.entries.get(parent.pid)?.startTime !== parent.startTime) return null;
    return { pid: parent.pid, startTime: parent.startTime, command: parent.command, runId: null, leaseId: null };
  });
  const admitted: ProcessIdentity[] = [];
  // Zombies too: a zombie's pid cannot be reused until it is reaped, and a thread-group leader
  // reads as a zombie while its other threads, still exiting, hold its children (whose ppid
  // stays its pid until the last thread is gone). A fully dead zombie has no children left.
  const queue = [...membership.members.values()].filter((m) => table.entries.get(m.pid)?.startTime === m.startTime);
  for (let index = 0; index < queue.length; index += 1) {
    const parent = queue[index] as Member;
    for (const childPid of children.get(parent.pid) ?? []) {
      const child = table.entries.get(childPid);
      if (child === undefined || neverMember(child.pid, excluded) || ownsEntry(membership, child)) continue;
      const [evidence] = admitBy('ancestry', child, scope);
      if (evidence === undefined) continue;
      const member = admit(membership, child, parent.depth + 1, evidence);
      admitted.push({ pid: member.pid, startTime: member.startTime });
      if (!member.zombie && child.pgid === child.pid) membership.groups.add(child.pgid);
      queue.push(member);
    }
  }
  return admitted;
}

/** Admits processes carrying the run cookie, wherever they hid (setsid, double fork, reparented). */
export function admitCookieCarriers(
  membership: Membership,
  table: ProcessTable,
  runId: string,
  search: Pick<CarrierSearch, 'notBefore' | 'readCookies'> = {},
): ProcessIdentity[] {
  const skip = (identity: ProcessIdentity) =>
    ownsEntry(membership, identity as ProcessEntry) || membership.nonCarriers.has(identityKey(identity));
  const unread = membership.unreadCookies;
  // A whole read re-reads every identity not classified yet: what it cannot read is the new list.
  unread.clear();
  const otherUsers = membership.otherUserCarriers;
  const carriers = findCookieCarriers(runId, table, { ...search, skip, unread, otherUsers });
  const carrierKeys = new Set(carriers.map(identityKey));
  const present = new Set<string>();
  for (const entry of table.entries.values()) {
    const key = identityKey(entry);
    present.add(key);
    if (!isZombie(entry) && !skip(entry) && !carrierKeys.has(key) && !unread.has(key)) membership.nonCarriers.add(key);
  }
  // Forget identities that no longer exist, so the cache follows the machine, not its history.
  for (const key of membership.nonCarriers) if (!present.has(key)) membership.nonCarriers.delete(key);
  for (const key of otherUsers.keys()) if (!present.has(key)) otherUsers.delete(key);
  return admitCarriers(membership, table, carriers, runId);
}

/**
 * Admits confirmed carriers of `runId`'s cookie found in `table` (one below their known parent,
 * or depth 1); returns those admitted (never the caller's line or a released tree).
 */
export function admitCarriers(
  membership: Membership,
  table: ProcessTable,
  carriers: readonly ProcessIdentity[],
  runId: string,
): ProcessIdentity[] {
  if (carriers.length === 0) return [];
  const excluded = exclusionsIn(membership, table, indexChildren(table.entries));
  // The carriers' environ was read and their identity reconfirmed (findCookieCarriers): the rule
  // sees exactly that cookie.
  const scope: AdmissionScope = {
    ...trackerScope(null, () => null),
    runs: new Map([[runId, { runId }]]),
    cookiesOf: () => ({ runId }),
  };
  const admitted: ProcessIdentity[] = [];
  for (const carrier of carriers) {
    const entry = table.entries.get(carrier.pid);
    if (entry === undefined || neverMember(entry.pid, excluded)) continue;
    const [evidence] = admitBy('run-cookie', entry, scope);
    if (evidence === undefined) continue;
    const parentDepth = membership.members.get(entry.ppid)?.depth;
    admit(membership, entry, parentDepth === undefined ? 1 : parentDepth + 1, evidence);
    if (entry.pgid === entry.pid) membership.groups.add(entry.pgid);
    admitted.push(carrier);
  }
  return admitted;
}

const NO_ANCHORS: readonly never[] = [];
const NOTHING = new Map<never, never>();
const NO_IDS = new Set<never>();

/** The admission scope of a tracker: a root, and parents remembered by identity (no allocation per call). */
function trackerScope(root: ProcessIdentity | null, parentOf: AdmissionScope['parentOf']): AdmissionScope {
  return {
    root,
    anchors: NO_ANCHORS,
    runs: NOTHING,
    leaseIds: NO_IDS,
    adopterPids: NO_IDS,
    deadSessions: NOTHING,
    seen: 'tracked',
    // A tracked run's cgroup membership is read by the run itself (run/cgroup-end.ts).
    cgroupOf: () => null,
    cookiesOf: () => null,
    parentOf,
  };
}
