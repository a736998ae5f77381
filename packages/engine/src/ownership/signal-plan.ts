/**
 * Turns "signal this tree" into concrete targets against one fresh table, or refuses the whole
 * signal. A group is signalled only when every live member is owned (else: identity became
 * uncertain); owned processes outside a fully owned group are signalled one by one (pidfd on
 * Linux); the caller's own group is never signalled; zombie-only groups count as gone. Targets
 * come out deepest first, so nothing is orphaned into a place the next step does not look.
 */
import type { Member, Membership } from '../membership/tracker.js';
import type { ProcessEntry, ProcessIdentity, ProcessTable } from '../table/types.js';
import { isZombie } from '../table/types.js';
import { unownedMemberError } from './errors.js';

export interface SignalRequest {
  /** Only these groups (the paperclip API); default: every owned group plus loose owned processes. */
  readonly groups?: readonly number[];
  /** Only the graceful roots: the root, or after it exited, the top surviving owned groups. */
  readonly graceful?: boolean;
  /**
   * A whole-machine table the caller read immediately before (it is the fresh read, so it is not
   * read twice). Never pass an older table: revalidation is only as fresh as this read.
   */
  readonly freshTable?: ProcessTable;
  /**
   * Revalidate on a fresh read of the owned trees instead of the whole machine (tree-view.ts),
   * falling back to a whole-machine read when that view cannot vouch for every wanted group.
   */
  readonly treeView?: boolean;
  /** With `treeView`: a read of the owned trees the caller took immediately before (not read twice). */
  readonly freshTreeView?: ProcessTable;
}

export interface GracefulRoots {
  readonly groups: readonly number[];
  readonly processes: readonly ProcessIdentity[];
}

/** `depth`: how deep the target starts (a group: its shallowest member, where it was set up). */
export type SignalTarget =
  | { readonly kind: 'group'; readonly pgid: number; readonly depth: number; readonly deepest: number }
  | { readonly kind: 'process'; readonly identity: ProcessIdentity; readonly depth: number };

function liveMembers(membership: Membership): Member[] {
  return [...membership.members.values()].filter((m) => !m.zombie);
}

/** Groups that can be signalled as a whole: owned-led and not the caller's own. */
function signallableGroup(membership: Membership, pgid: number, callerGroup: number | null): boolean {
  return membership.groups.has(pgid) && pgid !== callerGroup;
}

export function gracefulRoots(membership: Membership, rootPid: number, callerGroup: number | null): GracefulRoots {
  const live = liveMembers(membership);
  const root = live.find((m) => m.pid === rootPid && m.evidence.kind === 'root');
  const tops = root ? [root] : live.filter((m) => !live.some((parent) => parent.pid === m.ppid));
  const groups = new Set<number>();
  const processes: ProcessIdentity[] = [];
  for (const top of tops) {
    if (signallableGroup(membership, top.pgid, callerGroup)) groups.add(top.pgid);
    else processes.push({ pid: top.pid, startTime: top.startTime });
  }
  return { groups: [...groups], processes };
}

function groupEntries(table: ProcessTable): Map<number, ProcessEntry[]> {
  const groups = new Map<number, ProcessEntry[]>();
  for (const entry of table.entries.values()) {
    const members = groups.get(entry.pgid);
    if (members) members.push(entry);
    else groups.set(entry.pgid, [entry]);
  }
  return groups;
}

/** Plans one signal; throws IdentityUncertainError when a group to signal holds an unowned live member. */
export function planSignal(
  membership: Membership,
  table: ProcessTable,
  rootPid: number,
  callerGroup: number | null,
  request: SignalRequest = {},
  uid: number | undefined = typeof process.getuid === 'function' ? process.getuid() : undefined,
): SignalTarget[] {
  const byGroup = groupEntries(table);
  const graceful = request.graceful ? gracefulRoots(membership, rootPid, callerGroup) : undefined;
  const wanted = request.groups ?? graceful?.groups ?? [...membership.groups];
  const targets: SignalTarget[] = [];
  const covered = new Set<number>();
  for (const pgid of new Set(wanted)) {
    if (pgid === callerGroup) continue;
    const live = (byGroup.get(pgid) ?? []).filter((entry) => !isZombie(entry));
    if (live.length === 0) continue; // Gone, or zombies only: stopped.
    // killpg would reach another user's member too (we may be root): signal one by one instead,
    // so that member is refused with a clear EPERM.
    if (uid !== undefined && live.some((entry) => entry.uid !== uid)) continue;
    let depth = Number.POSITIVE_INFINITY;
    let deepest = 0;
    for (const entry of live) {
      const member = membership.members.get(entry.pid);
      if (member?.startTime !== entry.startTime) throw unownedMemberError(pgid, entry);
      depth = Math.min(depth, member.depth);
      deepest = Math.max(deepest, member.depth);
    }
    targets.push({ kind: 'group', pgid, depth, deepest });
    covered.add(pgid);
  }
  if (request.groups === undefined) {
    const loose = graceful
      ? graceful.processes.map((p) => membership.members.get(p.pid)).filter((m): m is Member => m !== undefined)
      : liveMembers(membership).filter((m) => !covered.has(m.pgid));
    for (const member of loose) {
      if (member.pid === process.pid) continue;
      targets.push({
        kind: 'process',
        identity: { pid: member.pid, startTime: member.startTime },
        depth: member.depth,
      });
    }
  }
  const deepest = (t: SignalTarget) => (t.kind === 'group' ? t.deepest : t.depth);
  return targets.sort((a, b) => b.depth - a.depth || deepest(b) - deepest(a));
}
