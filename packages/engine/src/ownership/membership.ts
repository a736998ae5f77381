/**
 * Who belongs to a tree, decided against one table snapshot. Members are remembered by identity;
 * a new process is admitted only as a descendant of a still-owned, still-identical member (the
 * ppid chain in the same snapshot) or by carrying the run cookie. Pure except for the cookie read.
 */
import type { ProcessEntry, ProcessIdentity, ProcessTable } from '../table/types.js';
import { identityKey, isZombie } from '../table/types.js';
import { findCookieCarriers } from './cookie.js';

export interface Member {
  readonly pid: number;
  readonly startTime: string;
  ppid: number;
  pgid: number;
  sid: number;
  /**
   * The session this member was seen in while the session's leader was an owned member (or the
   * member itself): every process in such a session descends from that leader. Kept while the
   * member stays in it (a process leaves a session only by setsid, becoming its own leader).
   */
  vouchedSid: number | null;
  /** Distance from the root along observed ancestry (cookie finds: one below their known parent, or 1). */
  depth: number;
  zombie: boolean;
  readonly via: 'root' | 'ancestry' | 'cookie';
}

export interface Membership {
  readonly members: Map<number, Member>;
  /** Groups led by an owned process when observed. A pgid cannot be reused while the group has members. */
  readonly groups: Set<number>;
  /** Identities already read and found not to carry the cookie (environments do not change). */
  readonly nonCarriers: Set<string>;
}

export function createMembership(root: ProcessIdentity): Membership {
  const members = new Map<number, Member>();
  members.set(root.pid, {
    pid: root.pid,
    startTime: root.startTime,
    ppid: 0,
    pgid: 0,
    sid: 0,
    vouchedSid: null,
    depth: 0,
    zombie: false,
    via: 'root',
  });
  return { members, groups: new Set(), nonCarriers: new Set() };
}

/** Owned and still the same process in `table`. */
export function ownsEntry(membership: Membership, entry: ProcessEntry): boolean {
  return membership.members.get(entry.pid)?.startTime === entry.startTime;
}

function admit(membership: Membership, entry: ProcessEntry, depth: number, via: Member['via']): Member {
  const member: Member = {
    pid: entry.pid,
    startTime: entry.startTime,
    ppid: entry.ppid,
    pgid: entry.pgid,
    sid: entry.sid,
    vouchedSid: null,
    depth,
    zombie: isZombie(entry),
    via,
  };
  membership.members.set(entry.pid, member);
  return member;
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

/** Admits every descendant of a live, identical member (breadth first, so depths are shortest paths). */
export function admitDescendants(membership: Membership, table: ProcessTable): ProcessIdentity[] {
  const children = new Map<number, ProcessEntry[]>();
  for (const entry of table.entries.values()) {
    const siblings = children.get(entry.ppid);
    if (siblings) siblings.push(entry);
    else children.set(entry.ppid, [entry]);
  }
  const admitted: ProcessIdentity[] = [];
  // Zombies too: a zombie's pid cannot be reused until it is reaped, and a thread-group leader
  // reads as a zombie while its other threads, still exiting, hold its children (whose ppid
  // stays its pid until the last thread is gone). A fully dead zombie has no children left.
  const queue = [...membership.members.values()].filter((m) => table.entries.get(m.pid)?.startTime === m.startTime);
  for (let index = 0; index < queue.length; index += 1) {
    const parent = queue[index] as Member;
    for (const child of children.get(parent.pid) ?? []) {
      if (child.pid === process.pid || membership.members.get(child.pid)?.startTime === child.startTime) continue;
      const member = admit(membership, child, parent.depth + 1, 'ancestry');
      admitted.push({ pid: member.pid, startTime: member.startTime });
      if (!member.zombie && child.pgid === child.pid) membership.groups.add(child.pgid);
      queue.push(member);
    }
  }
  return admitted;
}

/** Admits processes carrying the run cookie, wherever they hid (setsid, double fork, reparented). */
export function admitCookieCarriers(membership: Membership, table: ProcessTable, runId: string): ProcessIdentity[] {
  const skip = (identity: ProcessIdentity) =>
    ownsEntry(membership, identity as ProcessEntry) || membership.nonCarriers.has(identityKey(identity));
  const carriers = findCookieCarriers(runId, table, skip);
  const carrierKeys = new Set(carriers.map(identityKey));
  const present = new Set<string>();
  for (const entry of table.entries.values()) {
    const key = identityKey(entry);
    present.add(key);
    if (!isZombie(entry) && !skip(entry) && !carrierKeys.has(key)) membership.nonCarriers.add(key);
  }
  // Forget identities that no longer exist, so the cache follows the machine, not its history.
  for (const key of membership.nonCarriers) if (!present.has(key)) membership.nonCarriers.delete(key);
  admitCarriers(membership, table, carriers);
  return carriers;
}

/** Admits confirmed cookie carriers found in `table` (one below their known parent, or depth 1). */
export function admitCarriers(membership: Membership, table: ProcessTable, carriers: readonly ProcessIdentity[]): void {
  for (const carrier of carriers) {
    const entry = table.entries.get(carrier.pid);
    if (entry === undefined) continue;
    const parentDepth = membership.members.get(entry.ppid)?.depth;
    admit(membership, entry, parentDepth === undefined ? 1 : parentDepth + 1, 'cookie');
    if (entry.pgid === entry.pid) membership.groups.add(entry.pgid);
  }
}
