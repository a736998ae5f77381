/** `treewarden orphans --clean`: ends the groups found, with the revalidated tree kill, and reports. */

import { type EndReport, endMembers, type KillTreeFn } from '../ending/end-members.js';
import { killTree } from '../kill/kill-tree.js';
import type { LedgerActor } from '../ledger/records.js';
import { removeRunCgroup } from '../run/cgroup.js';
import { type CgroupEnd, endRunCgroup } from '../run/cgroup-end.js';
import type { StatePaths } from '../state/state-dir.js';
import type { OrphanGroup, OrphanScan } from './find-orphans.js';

export interface CleanedGroup {
  readonly group: OrphanGroup;
  readonly reports: readonly EndReport[];
  /** After the tree kills, `cgroup.kill` of the run's cgroup (when it had one). */
  readonly cgroup?: CgroupEnd;
}

export interface CleanOptions {
  readonly paths: StatePaths;
  readonly killTree?: KillTreeFn;
  readonly actor?: LedgerActor;
  readonly graceMs?: number;
  /**
   * Also end `unregistered` groups (a cookie nobody recorded, reparented to pid 1). Off by
   * default: another tool's live supervisor may own them, so ending them takes a deliberate ask.
   */
  readonly includeUnregistered?: boolean;
}

export async function cleanOrphans(scan: OrphanScan, options: CleanOptions): Promise<CleanedGroup[]> {
  const cleaned: CleanedGroup[] = [];
  for (const group of scan.groups) {
    if (group.kind === 'unregistered' && options.includeUnregistered !== true) continue;
    const reports = await endMembers(group.members, {
      killTree: options.killTree ?? killTree,
      ledgerFile: options.paths.ledgerFile,
      reason: 'orphan_clean',
      ...(options.actor !== undefined ? { actor: options.actor } : {}),
      ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
    });
    const cgroup = group.cgroup === undefined ? undefined : await endCgroup(group.cgroup);
    cleaned.push({ group, reports, ...(cgroup === undefined ? {} : { cgroup }) });
  }
  return cleaned;
}

/** The run is over, so all its cgroup holds is leaked (the membership is exact); then rmdir it. */
async function endCgroup(path: string): Promise<CgroupEnd> {
  const end = await endRunCgroup({ path, controllers: [] });
  removeRunCgroup(path);
  return end;
}

/** Identities still alive after cleaning, by the kills' own verification. */
export function survivorsOf(cleaned: readonly CleanedGroup[]): number[] {
  return cleaned.flatMap(({ reports, cgroup }) => [
    ...reports.flatMap((report) =>
      report.outcome === null ? [report.root.entry.pid] : report.outcome.survivors.map((s) => s.pid),
    ),
    ...(cgroup?.survivors.map((s) => s.pid) ?? []),
  ]);
}
