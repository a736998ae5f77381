/** The whole-system table as ProcessNodes keyed by identity, for the system view and its diffs. */
import { identityKey, type ProcessEntry } from '@treewarden/engine';
import type { ProcessNode } from '@treewarden/protocol';
import type { RunRecord } from '../run-record.js';
import type { CpuTracker, ListeningLookup } from './process-node.js';
import { toProcessNode } from './process-node.js';

export function buildSystemTable(
  entries: ReadonlyMap<number, ProcessEntry>,
  readAtMs: number,
  cpu: CpuTracker,
  runs: Iterable<RunRecord>,
  listeningOf?: ListeningLookup,
): Map<string, ProcessNode> {
  const percents = cpu.sample(entries, readAtMs);
  const escapedKeys = new Set<string>();
  for (const record of runs) {
    for (const member of record.membership.entries()) {
      if (record.membership.isEscaped(member)) escapedKeys.add(identityKey(member));
    }
  }
  const table = new Map<string, ProcessNode>();
  for (const entry of entries.values()) {
    const key = identityKey(entry);
    table.set(key, toProcessNode(entry, percents.get(key), escapedKeys.has(key), listeningOf));
  }
  return table;
}
