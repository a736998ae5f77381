/**
 * Revalidating a group signal on a fresh read of the owned trees instead of the whole machine.
 * A process group lies inside one session, and every process of a session descends from the
 * session's leader (fork keeps the session; setsid leaves it for a new one; the kernel does not
 * reuse a sid while the session has a member). So when a group's owned member sits in a session
 * whose leader was an owned, identical member (Member.vouchedSid), everything `killpg` can reach
 * in that group descends from our tree: no stranger can be in it, except the two kinds of
 * descendant that are never members (membership/exclusions.ts): the caller's own line, which the
 * group guard refuses (signal/guards.ts), and released trees, which send us to the whole read. Such a group is signalled whole
 * after its members visible in the tree read are checked as owned; any other wanted group, or an
 * unowned member in view, sends the caller back to the whole-machine revalidation.
 */
import { type Membership, ownsEntry } from '../membership/tracker.js';
import type { ProcessEntry, ProcessTable } from '../table/types.js';
import { isZombie } from '../table/types.js';

function vouched(membership: Membership, entry: ProcessEntry): boolean {
  const member = membership.members.get(entry.pid);
  return member !== undefined && member.startTime === entry.startTime && member.vouchedSid === entry.sid;
}

/** True when every wanted group can be revalidated on `view` (a tree read of the owned pids). */
export function treeViewVouches(membership: Membership, view: ProcessTable, groups: readonly number[]): boolean {
  // A released process stays in our sessions but is no member, and once its parent exits no tree
  // read shows it: only the whole machine can vouch for a group then.
  if (membership.released.size > 0) return false;
  for (const pgid of groups) {
    const live = [...view.entries.values()].filter((entry) => entry.pgid === pgid && !isZombie(entry));
    if (live.length === 0) continue; // Gone, or zombies only: nothing to signal.
    if (!live.every((entry) => ownsEntry(membership, entry))) return false;
    if (!live.some((entry) => vouched(membership, entry))) return false;
  }
  return true;
}
