/**
 * Leaks that a run's own cgroup v2 still holds: the ledger records each `--cgroup` run's cgroup
 * (`run_start.cgroup`); once the run is over, every live process still in that cgroup is its
 * leftover, whatever its cookie or cwd say (only the cgroup's owner can move a process in, and
 * none can leave, so the membership is exact). Empty cgroups of runs that are over are removed.
 * Kept separate from membership.ts on purpose: this is one more kind of evidence for the
 * membership model to take in.
 */
import { basename, dirname } from 'node:path';
import type { LedgerRecord } from '../ledger/records.js';
import { isCgroupPopulated, readCgroupPids, removeRunCgroup } from '../run/cgroup.js';
import { CGROUP_HOME_NAME } from '../run/cgroup-probe.js';
import { identityKey, isZombie, type ProcessIdentity, type ProcessTable } from '../table/types.js';
import type { MemberMatch } from './membership.js';

export interface RecordedCgroup {
  readonly runId: string;
  readonly leaseId: string | null;
  readonly path: string;
}

/** The evidence as the user reads it. */
export function cgroupReason(path: string): string {
  return `in the run's cgroup ${path}`;
}

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

/** Live processes in the recorded cgroups of runs that are over, each with the cgroup as its reason. */
export function findCgroupMembers(
  table: ProcessTable,
  cgroups: readonly RecordedCgroup[],
  excludePids: ReadonlySet<number>,
  kept: readonly ProcessIdentity[] = [],
): MemberMatch[] {
  const keptKeys = new Set(kept.map(identityKey));
  const members: MemberMatch[] = [];
  for (const cgroup of cgroups) {
    const inside: MemberMatch[] = [];
    for (const pid of readCgroupPids(cgroup.path) ?? []) {
      const entry = table.entries.get(pid);
      if (entry === undefined || isZombie(entry) || excludePids.has(pid)) continue;
      inside.push({ entry, runId: cgroup.runId, leaseId: cgroup.leaseId, reasons: [cgroupReason(cgroup.path)] });
    }
    // A kept process (known from a lease file) in it: its whole cgroup is released, not leaked.
    if (inside.some(({ entry }) => keptKeys.has(identityKey(entry)))) continue;
    members.push(...inside);
  }
  return members;
}

/** Adds the cgroup evidence: to a process already matched as a reason, otherwise as a new member. */
export function mergeCgroupMembers(matches: readonly MemberMatch[], inCgroups: readonly MemberMatch[]): MemberMatch[] {
  const byPid = new Map(matches.map((match) => [match.entry.pid, match]));
  for (const member of inCgroups) {
    const known = byPid.get(member.entry.pid);
    byPid.set(
      member.entry.pid,
      known === undefined ? member : { ...known, reasons: [...known.reasons, ...member.reasons] },
    );
  }
  return [...byPid.values()];
}

/** rmdir the recorded cgroups that are empty now (a populated one refuses: nothing is lost). */
export function removeEmptyCgroups(cgroups: readonly RecordedCgroup[]): string[] {
  return cgroups
    .filter((cgroup) => isCgroupPopulated(cgroup.path) === false && removeRunCgroup(cgroup.path))
    .map((cgroup) => cgroup.path);
}
