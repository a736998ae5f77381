/**
 * Finding a run's escapes without reading the whole machine. A descendant escapes the owned
 * trees only when its parent dies before an observation saw it; the kernel then reparents it to
 * the nearest subreaper ancestor (a lease guardian, `systemd --user`) or to pid 1. So the
 * children of the top members' ancestors, checked for the run cookie, hold every escape that
 * carries it. Identities already read and found without the cookie are not read again.
 */

import { type CarrierSearch, findCookieCarriers } from '../membership/cookie.js';
import { type Membership, ownsEntry } from '../membership/tracker.js';
import { identityKey, isZombie, type ProcessIdentity, type ProcessTable } from '../table/types.js';

/** The non-carrier cache only grows here (a whole read prunes it); past this it starts over. */
const MAX_NON_CARRIERS = 65_536;

/** Cookie carriers among `adopted` (a TableReader.readAdopters read) that are not owned yet. */
export function findEscapedCarriers(
  membership: Membership,
  adopted: ProcessTable,
  runId: string,
  search: Pick<CarrierSearch, 'notBefore' | 'readCookies'> = {},
): ProcessIdentity[] {
  const skip = (identity: ProcessIdentity) =>
    membership.members.get(identity.pid)?.startTime === identity.startTime ||
    membership.nonCarriers.has(identityKey(identity));
  // Added to, not replaced: this read is not the whole machine (see admitCookieCarriers).
  const unread = membership.unreadCookies;
  const otherUsers = membership.otherUserCarriers;
  const carriers = findCookieCarriers(runId, adopted, { ...search, skip, unread, otherUsers });
  const carrierKeys = new Set(carriers.map(identityKey));
  // Only added here, never pruned: this read is not the whole machine, so absence proves nothing.
  if (membership.nonCarriers.size > MAX_NON_CARRIERS) membership.nonCarriers.clear();
  for (const entry of adopted.entries.values()) {
    const key = identityKey(entry);
    if (!isZombie(entry) && !ownsEntry(membership, entry) && !carrierKeys.has(key) && !unread.has(key))
      membership.nonCarriers.add(key);
  }
  return carriers;
}
