/**
 * `previewKill(target)`: what `killTree(target)` with the same run cookie would end, read the same
 * way (the tree owner's observation: descendants by identity, plus every process carrying the run
 * cookie wherever it hid), without signalling anything. A confirmation lists exactly these; the
 * kill itself observes again, so a process born after the preview still goes with its tree.
 */
import { createTreeOwner } from '../ownership/tree-owner.js';
import { assertSignallablePid, SignalRefusedError } from '../signal/guards.js';
import type { ProcessIdentity, TableReader } from '../table/types.js';

export interface KillPreview {
  /** Why the kill would be refused (a recycled pid, a protected one); null when it would proceed. */
  readonly refused: string | null;
  /** The live members the kill would end, the target first when alive. */
  readonly members: readonly ProcessIdentity[];
}

export async function previewKill(
  target: ProcessIdentity,
  options: { readonly runId?: string; readonly reader?: TableReader } = {},
): Promise<KillPreview> {
  try {
    assertSignallablePid(target.pid);
  } catch (error) {
    if (error instanceof SignalRefusedError) return { refused: error.message, members: [] };
    throw error;
  }
  const owner = createTreeOwner(target, { runId: options.runId, reader: options.reader });
  try {
    await owner.observe();
    const recycled = owner.rootRecycled();
    if (recycled !== null) return { refused: recycled, members: [] };
    const members = owner.members();
    const isTarget = (member: ProcessIdentity) => member.pid === target.pid && member.startTime === target.startTime;
    return { refused: null, members: [...members.filter(isTarget), ...members.filter((member) => !isTarget(member))] };
  } finally {
    if (options.reader === undefined) owner.reader.close?.();
  }
}
