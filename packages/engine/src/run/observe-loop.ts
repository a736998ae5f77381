/**
 * Observes the run's owned tree every RUN_POLL_INTERVAL_MS, so descendants are remembered by
 * identity before their parents exit and they are reparented. Each tick is the owned-tree
 * refresh: only the owned pids and their descendants are read, so the cost follows the tree, not
 * the machine. Escapes that lost their parent between two ticks are still found by the run cookie:
 * the kill looks where orphans are reparented, the root-exit check reads the whole machine. One
 * tick at a time: a slow read delays the next tick instead of piling up.
 */
import type { RevalidatingTreeOwner } from '../ownership/tree-owner.js';
import type { TreeOwner } from '../ownership/types.js';
import { identityKey, type ProcessIdentity, type ProcessTable, type TableReader } from '../table/types.js';

export const RUN_POLL_INTERVAL_MS = 250;

export interface ObserveLoop {
  stop(): void;
}

/**
 * The cheapest observation this platform supports: an owned-tree read where a tree reader exists,
 * else a full observe. Resolves to the table it read (the limits are checked on it), or null when
 * it read none or the owner read its own.
 */
export function ownedTreeRefresh(
  owner: RevalidatingTreeOwner,
  reader?: TableReader,
): () => Promise<ProcessTable | null> {
  // The owner's own reader by default: a walk holds the trees' /proc files (linux-reader.ts), so
  // the kill that ends this run re-reads them as one pread each instead of opening them cold.
  const treeReader = reader ?? (process.platform === 'linux' ? owner.reader : undefined);
  if (treeReader === undefined) {
    return async () => {
      await owner.observe();
      return null;
    };
  }
  return async () => {
    // Every owned pid is a root of the read, so an owned pid missing from it really is gone.
    const table = await treeReader.readTrees(owner.ownedIdentities().map((member) => member.pid));
    // Partial: the owned trees, not the whole machine. Taken as whole, it would replace the
    // owner's last whole read (where the caller's own group is looked up off Linux: a tree read
    // does not hold the caller) and forget the pid mark of the owner's last cookie sweep.
    if (table !== null) owner.observeTable(table, true);
    return table;
  };
}

/**
 * Called after each refresh with the table it read (null: none) and the owner's live members
 * after it; the run checks its limits here.
 */
export type RefreshListener = (table: ProcessTable | null, members: readonly ProcessIdentity[]) => void;

export function startObserveLoop(
  owner: TreeOwner,
  refresh: () => Promise<ProcessTable | null>,
  intervalMs: number,
  onMembers: (members: readonly ProcessIdentity[]) => void,
  onRefresh?: RefreshListener,
): ObserveLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let lastKey = '';

  async function tick(): Promise<void> {
    let table: ProcessTable | null = null;
    try {
      table = await refresh();
    } catch {
      // A failed read ("no table") is retried on the next tick; the kill re-reads anyway.
    }
    if (stopped) return;
    const members = owner.members();
    onRefresh?.(table, members);
    if (stopped) return; // the listener may have ended the run
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
