/**
 * Decides when the poller must look for leaks now instead of at the slow interval: the moment a
 * run loses its supervisors (its lease's holder and guardian are both dead — the host sees that
 * in the lease registry it reads every tick), and the moment such a run's last observed process
 * is gone (so its end can be recorded). Only these transitions cost a scan; an idle app does none.
 */
import { isZombie } from '@treewarden/engine';
import type { RunRecord } from '../run-record.js';

export interface LeakWatch {
  /** Call after memberships were updated; true when an orphan scan should run in this tick. */
  changed(records: Iterable<RunRecord>): boolean;
}

/** A run with no end on record whose supervisors are dead, and how many of its processes live. */
interface Watched {
  readonly live: number;
}

export function liveMembers(record: RunRecord): number {
  return record.membership.entries().filter((entry) => !isZombie(entry)).length;
}

export function createLeakWatch(): LeakWatch {
  let watched = new Map<string, Watched>();
  return {
    changed(records) {
      const next = new Map<string, Watched>();
      let changed = false;
      for (const record of records) {
        if (!record.unsupervised || record.phase === 'ended') continue;
        const live = liveMembers(record);
        const before = watched.get(record.id);
        // Newly unsupervised, or its last observed process just went: look now.
        if (before === undefined || (before.live > 0 && live === 0)) changed = true;
        next.set(record.id, { live });
      }
      watched = next;
      return changed;
    },
  };
}
