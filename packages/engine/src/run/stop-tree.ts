/**
 * Ends the run's tree: the revalidated kill of its owner (graceful, then forced, retried), then a
 * direct SIGKILL of the root when the tree kill did not take (the headless runner's fallback),
 * then a bounded wait for the root's exit status.
 */
import { killOwnedTree, type OwnerKill } from '../kill/owner-kill.js';
import type { KillOptions, KillOutcome } from '../kill/types.js';
import type { RevalidatingTreeOwner } from '../ownership/tree-owner.js';
import type { TreeOwner } from '../ownership/types.js';
import { identityKey, type ProcessIdentity } from '../table/types.js';
import type { RootProcess } from './root-process.js';

/** How long to wait for the root's exit status once the kill is over. */
export const ROOT_EXIT_WAIT_MS = 2000;

export interface TreeStopResult {
  readonly kill?: KillOutcome;
  readonly attempts: number;
  /** Members alive after every attempt; non-empty means `kill_failed`. */
  readonly survivors: readonly ProcessIdentity[];
  /** Members the kill ended (the root excluded), e.g. a root's leftovers. */
  readonly killed: readonly ProcessIdentity[];
  readonly error?: string;
}

function unique(identities: readonly ProcessIdentity[]): ProcessIdentity[] {
  const seen = new Map<string, ProcessIdentity>();
  for (const identity of identities) seen.set(identityKey(identity), identity);
  return [...seen.values()];
}

async function killQuietly(
  owner: RevalidatingTreeOwner,
  options: KillOptions,
  killOwner: OwnerKill,
): Promise<KillOutcome | Error> {
  try {
    return await killOwner(owner, options);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

async function membersAfterObserving(owner: TreeOwner): Promise<readonly ProcessIdentity[]> {
  try {
    await owner.observe();
  } catch {
    // Keep the last observation.
  }
  return owner.members();
}

export async function stopTree(
  owner: RevalidatingTreeOwner | null,
  root: RootProcess,
  options: KillOptions,
  killOwner: OwnerKill = killOwnedTree,
): Promise<TreeStopResult> {
  const result =
    owner === null
      ? new Error('no tree owner: the root identity could not be read')
      : await killQuietly(owner, options, killOwner);
  const kill = result instanceof Error ? undefined : result;
  const tookEffect = kill !== undefined && (kill.result === 'killed' || kill.result === 'already_gone');
  if (!tookEffect) root.signalDirect('SIGKILL');
  const exit = await root.waitExit(ROOT_EXIT_WAIT_MS);

  let survivors: ProcessIdentity[] = [];
  if (!tookEffect) {
    const observed = owner === null ? [] : await membersAfterObserving(owner);
    survivors = unique([...(kill?.survivors ?? []), ...observed]);
  }
  const rootKey = root.identity === null ? '' : identityKey(root.identity);
  // The root's exit status is the proof of its death; without it, after SIGKILL and a bounded
  // wait (uninterruptible sleep), it is a survivor whatever the owner said.
  if (exit !== null) survivors = survivors.filter((s) => identityKey(s) !== rootKey);
  else if (root.identity !== null) survivors = unique([...survivors, root.identity]);
  return {
    kill,
    attempts: kill?.attempts ?? (owner === null ? 0 : 1),
    survivors,
    killed: (kill?.killed ?? []).filter((k) => identityKey(k) !== rootKey),
    error: result instanceof Error ? result.message : kill?.error,
  };
}
