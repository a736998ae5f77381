/**
 * A cookie sweep cannot classify a process whose environ reads empty: an execve in progress
 * (`nohup node …` execs twice) shows no environment until the new image is set up. Once the
 * run's root has exited, such a process is no longer anyone's child in the tree either, so one
 * sweep at that moment missed it: the run ended "ok, no leftovers" while its nohup child kept
 * running. These re-reads, bounded and only of those identities, classify them once readable.
 */

import { type CookieReader, readRunCookies } from '../membership/cookie.js';
import { admitCarriers, type Membership, ownsEntry } from '../membership/tracker.js';
import { readLiveStartTime } from '../signal/start-time.js';
import type { ProcessEntry, ProcessIdentity, ProcessTable, TableReader } from '../table/types.js';

/** Between re-reads: an execve's window is well under a millisecond; a loaded box stretches it. */
export const SETTLE_POLL_MS = 5;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Classifies what is readable now; returns the confirmed carriers (identity rechecked). */
function classifyReadable(membership: Membership, runId: string, readCookies: CookieReader): ProcessIdentity[] {
  const carriers: ProcessIdentity[] = [];
  for (const [key, identity] of membership.unreadCookies) {
    // Gone, a zombie, its pid reused, or admitted meanwhile (by ancestry): nothing left to decide.
    if (readLiveStartTime(identity.pid) !== identity.startTime || ownsEntry(membership, identity as ProcessEntry)) {
      membership.unreadCookies.delete(key);
      continue;
    }
    const cookies = readCookies(identity.pid);
    if (cookies === null) continue;
    membership.unreadCookies.delete(key);
    // The environ read came after the start-time check: confirm the pid was not recycled in between.
    if (cookies.runId === runId && readLiveStartTime(identity.pid) === identity.startTime) carriers.push(identity);
    else membership.nonCarriers.add(key);
  }
  return carriers;
}

/**
 * Re-reads the unclassified identities until each is classified, gone, or `boundMs` passed;
 * admits the carriers found (read with their trees, so what they started is owned too).
 * Returns the identities admitted.
 */
export async function settleUnreadCookies(
  membership: Membership,
  runId: string,
  reader: TableReader,
  boundMs: number,
  readCookies: CookieReader = readRunCookies,
  onTable: (table: ProcessTable) => void = () => {},
): Promise<ProcessIdentity[]> {
  const deadline = performance.now() + boundMs;
  const admitted: ProcessIdentity[] = [];
  for (;;) {
    const carriers = classifyReadable(membership, runId, readCookies);
    if (carriers.length > 0) {
      const table = await reader.readTrees([...membership.members.keys(), ...carriers.map((c) => c.pid)]);
      if (table !== null) {
        const same = carriers.filter((c) => table.entries.get(c.pid)?.startTime === c.startTime);
        admitted.push(...admitCarriers(membership, table, same, runId));
        onTable(table);
      }
    }
    if (membership.unreadCookies.size === 0 || performance.now() >= deadline) return admitted;
    await sleep(SETTLE_POLL_MS);
  }
}
