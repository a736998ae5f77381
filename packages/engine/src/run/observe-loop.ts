/**
 * Observes the run's owned tree every RUN_POLL_INTERVAL_MS, so descendants are remembered by
 * identity before their parents exit and they are reparented. Each tick is the owned-tree
 * refresh: only the owned pids and their descendants are read, so the cost follows the tree, not
 * the machine. Escapes that lost their parent between two ticks are still found by the run cookie:
 * the kill looks where orphans are reparented, the root-exit check reads the whole machine. One
 * tick at a time: a slow read delays the next tick instead of piling up.
 */
import type { TreeOwner } from '../kill/types.js';
import type { RevalidatingTreeOwner } from '../ownership/tree-owner.js';
import { createLinuxReader } from '../table/linux-reader.js';
import { identityKey, type ProcessIdentity, type TableReader } from '../table/types.js';

export const RUN_POLL_INTERVAL_MS = 250;

export interface ObserveLoop {
  stop(): void;
}

function canRefreshPartially(owner: TreeOwner): owner is RevalidatingTreeOwner {
  const candidate = owner as Partial<RevalidatingTreeOwner>;
  return typeof candidate.observeTable === 'function' && typeof candidate.ownedIdentities === 'function';
}

/** The cheapest observation this owner supports: an owned-tree read when it can take one, else a full observe. */
export function ownedTreeRefresh(owner: TreeOwner, reader?: TableReader): () => Promise<void> {
  const treeReader = reader ?? (process.platform === 'linux' ? createLinuxReader() : undefined);
  if (treeReader === undefined || !canRefreshPartially(owner)) return () => owner.observe();
  return async () => {
    // Every owned pid is a root of the read, so an owned pid missing from it really is gone.
    const table = await treeReader.readTrees(owner.ownedIdentities().map((member) => member.pid));
    if (table !== null) owner.observeTable(table);
  };
}

export function startObserveLoop(
  owner: TreeOwner,
  refresh: () => Promise<void>,
  intervalMs: number,
  onMembers: (members: readonly ProcessIdentity[]) => void,
): ObserveLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let lastKey = '';

  async function tick(): Promise<void> {
    try {
      await refresh();
    } catch {
      // A failed read ("no table") is retried on the next tick; the kill re-reads anyway.
    }
    if (stopped) return;
    const members = owner.members();
    const key = members.map(identityKey).join(',');
    if (key !== lastKey) {
      lastKey = key;
      onMembers(members);
    }
    timer = setTimeout(() => void tick(), intervalMs);
  }

  void tick();
  return {
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
