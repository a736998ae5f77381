/**
 * A process's start as a person reads it. The identity's start time is the kernel's (clock ticks
 * since boot on Linux): exact, but meaningless to read. Where the renderer holds the process's
 * node it has the wall-clock start too, and says that; otherwise it names the identity as such.
 */
import type { Identity, ProcessNode, Snapshot } from '@treewarden/protocol';
import { formatWallClock } from './format';
import { identityKey } from './identity';

/** Every process node the snapshot carries: runs' members, sessions' processes, leaked processes. */
function* snapshotNodes(snapshot: Snapshot): Generator<ProcessNode> {
  for (const lease of snapshot.leases) for (const run of lease.runs) yield* run.processes;
  for (const session of snapshot.sessions ?? []) yield* session.processes;
  for (const orphan of snapshot.orphans) yield orphan.process;
}

/** The wall-clock start of exactly this identity (same pid and start time), when the renderer holds its node. */
export function findStartedAtMs(
  identity: Identity,
  snapshot: Snapshot | null,
  system: ReadonlyMap<string, ProcessNode>,
): number | null {
  const key = identityKey(identity);
  const fromSystem = system.get(key);
  if (fromSystem !== undefined && identityKey(fromSystem) === key) return fromSystem.startedAtMs;
  if (snapshot === null) return null;
  for (const node of snapshotNodes(snapshot)) if (identityKey(node) === key) return node.startedAtMs;
  return null;
}

/** "started today 15:27:54", or "identity 123456" when only the kernel's start time is known. */
export function describeStart(identity: Identity, startedAtMs: number | null, nowMs: number = Date.now()): string {
  return startedAtMs === null ? `identity ${identity.startTime}` : `started ${formatWallClock(startedAtMs, nowMs)}`;
}
