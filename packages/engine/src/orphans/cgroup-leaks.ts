/**
 * Leaks that a run's own cgroup v2 still holds: the ledger records each `--cgroup` run's cgroup
 * (`run_start.cgroup`); once the run is over, every live process still in that cgroup is its
 * leftover, whatever its cookie or cwd say (only the cgroup's owner can move a process in, and
 * none can leave, so the membership is exact). Empty cgroups of runs that are over are removed.
 * The evidence itself is the membership model's `in-run-cgroup` kind (membership/evidence.ts);
 * this module picks the cgroups to believe from the ledger and removes the empty ones.
 */
import { basename, dirname } from 'node:path';
import type { LedgerRecord } from '../ledger/records.js';
import type { RecordedCgroup } from '../membership/evidence.js';
import { isCgroupPopulated, removeRunCgroup } from '../run/cgroup.js';
import { CGROUP_HOME_NAME } from '../run/cgroup-probe.js';

export type { RecordedCgroup };

/**
 * A recorded path is believed only in our own shape, `…/treewarden/<runId>`: a ledger line can
 * never point the kill at some other cgroup.
 */
function isRunCgroupPath(path: string, runId: string): boolean {
  return path.startsWith('/') && basename(path) === runId && basename(dirname(path)) === CGROUP_HOME_NAME;
}

/**
 * Each `--cgroup` run's recorded cgroup, for the runs named in `runIds` (those that are over).
 * A run that kept descendants on purpose (`keepDescendants`) is left out: what its cgroup holds
 * was released, never leaked.
 */
export function recordedCgroups(records: readonly LedgerRecord[], runIds: ReadonlySet<string>): RecordedCgroup[] {
  const found = new Map<string, RecordedCgroup>();
  const kept = new Set(
    records.flatMap((record) => (record.kind === 'run_end' && (record.kept?.length ?? 0) > 0 ? [record.runId] : [])),
  );
  for (const record of records) {
    if (record.kind === 'run_start' && kept.has(record.runId)) continue;
    if (record.kind !== 'run_start' || record.cgroup === undefined || !runIds.has(record.runId)) continue;
    if (!isRunCgroupPath(record.cgroup, record.runId)) continue;
    found.set(record.runId, { runId: record.runId, leaseId: record.leaseId ?? null, path: record.cgroup });
  }
  return [...found.values()];
}

/** rmdir the recorded cgroups that are empty now (a populated one refuses: nothing is lost). */
export function removeEmptyCgroups(cgroups: readonly RecordedCgroup[]): string[] {
  return cgroups
    .filter((cgroup) => isCgroupPopulated(cgroup.path) === false && removeRunCgroup(cgroup.path))
    .map((cgroup) => cgroup.path);
}
