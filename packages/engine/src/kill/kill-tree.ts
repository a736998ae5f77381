/**
 * `killTree(target)`: end the whole tree of a process the caller named by identity. The target's
 * start time is checked against the live process first; a mismatch is refused, never "fixed".
 */
import { createTreeOwner } from '../ownership/tree-owner.js';
import { assertSignallablePid, SignalRefusedError } from '../signal/guards.js';
import type { ProcessIdentity } from '../table/types.js';
import { killOwnedTree } from './owner-kill.js';
import type { KillOutcome, KillTreeOptions } from './types.js';

function refusedOutcome(target: ProcessIdentity, error: string): KillOutcome {
  return {
    result: 'refused',
    target,
    attempts: 0,
    killed: [],
    survivors: [],
    timeline: [{ atMs: 0, action: 'refused', detail: error }],
    error,
    startedAtMs: Date.now(),
    durationMs: 0,
  };
}

export async function killTree(target: ProcessIdentity, options: KillTreeOptions = {}): Promise<KillOutcome> {
  try {
    assertSignallablePid(target.pid);
  } catch (error) {
    if (error instanceof SignalRefusedError) return refusedOutcome(target, error.message);
    throw error;
  }
  const owner = createTreeOwner(target, { runId: options.runId, reader: options.reader, signals: options.signals });
  // The request names the identity the caller saw: a live process with another start time on
  // that pid is refused outright, even when a run cookie could anchor the rest of the tree.
  await owner.observe();
  try {
    const recycled = owner.rootRecycled();
    if (recycled !== null) return refusedOutcome(target, recycled);
    return await killOwnedTree(owner, options);
  } finally {
    // The owner made its reader: give back the files its walks held (nothing reads after this kill).
    if (options.reader === undefined) owner.reader.close?.();
  }
}
