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
  entries.forEach((entry) => {
    const key = identityKey(entry);
    const percent = percents.get(key);
    const escaped = escapedKeys.has(key);
    const listening = listeningOf?.(key);
    const built = builtFrom.get(entry);
    if (
      built !== undefined &&
      built.node.cpuPercent === percent &&
      built.node.escaped === escaped &&
      built.listening === listening
    ) {
      table.set(key, built.node);
      return;
    }
    const node = toProcessNode(entry, percent, escaped, listening === undefined ? undefined : () => listening);
    builtFrom.set(entry, { node, listening });
    table.set(key, node);
  });
  return table;
}

/**
 * The row last built from each entry object. The poll worker's deltas keep an unchanged process's
 * entry object, so a sleeping process (same entry, 0 % again, same sockets) keeps its row object
 * too, and the diff after it skips the row by identity instead of comparing its fields.
 */
const builtFrom = new WeakMap<ProcessEntry, { readonly node: ProcessNode; readonly listening: unknown }>();
