/**
 * Which lease the Runs view opens on when there is no selection to keep: what needs attention
 * first (a lease with leaked processes), else one with live processes, else the newest. Opening on
 * a finished lease with 0 processes while another leaks hides exactly what the user came for.
 */
import type { LeaseView } from '@treewarden/protocol';

/** Within each tier the newest lease wins, whatever order the snapshot lists them in. */
export function firstLease(leases: readonly LeaseView[]): LeaseView | null {
  const newest = [...leases].sort((a, b) => b.createdAtMs - a.createdAtMs);
  return (
    newest.find((lease) => lease.leakedCount > 0) ?? newest.find((lease) => lease.liveCount > 0) ?? newest[0] ?? null
  );
}
