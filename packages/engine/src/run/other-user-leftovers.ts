/**
 * A run's leftovers that run as another user now: a daemon that double-forked and dropped
 * privileges with setuid() keeps the run's cookie but is no longer ours to signal (the engine
 * never signals another user's process, even as root). They are named, never ended.
 */
import type { OtherUserCarrier } from '../membership/cookie.js';
import type { ProcessIdentity } from '../table/types.js';

const LISTED = 5;

export function identityOf(carrier: OtherUserCarrier): ProcessIdentity {
  return { pid: carrier.pid, startTime: carrier.startTime };
}

/** One line naming each (the first few) by pid and uid, and why they still run. */
export function otherUserLeftoversMessage(carriers: readonly OtherUserCarrier[]): string {
  const named = carriers
    .slice(0, LISTED)
    .map((carrier) => `pid ${carrier.pid} (uid ${carrier.uid})`)
    .join(', ');
  const more = carriers.length > LISTED ? ` and ${carriers.length - LISTED} more` : '';
  const count = carriers.length === 1 ? '1 leftover runs' : `${carriers.length} leftovers run`;
  return `${count} as another user and ${carriers.length === 1 ? 'was' : 'were'} not ended: ${named}${more}; Treewarden never signals another user's process, end it as its owner`;
}
