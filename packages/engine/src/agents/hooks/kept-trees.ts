/**
 * What the user asked to keep is never the reaper's: runs started with `keepAfterLease` (the MCP
 * server's `keepAfterSession`) with the guardian that supervises them, and what any run released
 * on purpose (`keepDescendants`). These run under the agent's MCP server, so they carry its
 * session id and sit in its tree; the lease registry is where the wish to keep them is recorded.
 */
import { readLeaseRegistry } from '../../lease/registry.js';
import { releasedTrees } from '../../membership/exclusions.js';
import { statePaths } from '../../state/state-dir.js';
import { indexChildren } from '../../table/trees.js';
import type { ProcessIdentity, ProcessTable } from '../../table/types.js';

/** The kept identities on record: kept runs' roots, their guardians, released descendants. */
export function keptIdentities(stateRoot: string): ProcessIdentity[] {
  const kept: ProcessIdentity[] = [];
  for (const { lease } of readLeaseRegistry(statePaths(stateRoot)).leases) {
    for (const run of lease.runs) {
      kept.push(...(run.kept ?? []));
      if (run.keepAfterLease !== true) continue;
      kept.push(lease.guardian);
      if (run.pid !== null && run.startTime !== null) kept.push({ pid: run.pid, startTime: run.startTime });
    }
  }
  return kept;
}

/** Pids of the kept processes still present and of everything under them. */
export function keptPids(stateRoot: string, table: ProcessTable): Set<number> {
  return releasedTrees(keptIdentities(stateRoot), table.entries, indexChildren(table.entries));
}
