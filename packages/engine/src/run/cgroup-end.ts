/**
 * The end of a run's cgroup, after the owner's revalidated tree kill: `cgroup.kill` for whatever
 * the owner never saw (a double-forked escapee that cleared its environment), a bounded wait for
 * the cgroup to empty, and the survivors re-judged. Members are named by identity for the record.
 */
import { readStatFields } from '../table/linux-stat.js';
import { identityKey, type ProcessIdentity } from '../table/types.js';
import { killRunCgroup, type RunCgroup, readCgroupPids } from './cgroup.js';

export interface CgroupEnd {
  /** Members `cgroup.kill` ended (the cgroup is exact: each one was the run's). */
  readonly killed: readonly ProcessIdentity[];
  /** Still alive after the kill and its bounded wait: the owner's survivors that lived on, and the cgroup's. */
  readonly survivors: readonly ProcessIdentity[];
  /** The kill itself failed (e.g. EACCES on cgroup.kill); the survivors say what is left. */
  readonly error?: string;
}

function identityOf(pid: number): ProcessIdentity | null {
  const stat = readStatFields(pid);
  return stat === null ? null : { pid, startTime: stat.startTicks };
}

/** Alive and still the same process; a zombie counts as ended (its parent reaps it). */
function isStillAlive(identity: ProcessIdentity): boolean {
  const stat = readStatFields(identity.pid);
  return stat !== null && stat.startTicks === identity.startTime && stat.state !== 'Z' && stat.state !== 'X';
}

function unique(identities: readonly ProcessIdentity[]): ProcessIdentity[] {
  return [...new Map(identities.map((identity) => [identityKey(identity), identity])).values()];
}

/** The cgroup's members now, as identities (a pid that exited meanwhile is left out). */
export function readCgroupMembers(cgroup: RunCgroup): ProcessIdentity[] {
  return (readCgroupPids(cgroup.path) ?? []).flatMap((pid) => identityOf(pid) ?? []);
}

/** Kills what is left in the cgroup and says who survived; `ownerSurvivors` are the tree kill's. */
export async function endRunCgroup(
  cgroup: RunCgroup,
  ownerSurvivors: readonly ProcessIdentity[] = [],
): Promise<CgroupEnd> {
  const before = readCgroupMembers(cgroup);
  let remaining: readonly number[];
  let error: string | undefined;
  try {
    remaining = (await killRunCgroup(cgroup.path)).remaining;
  } catch (failure) {
    error = `cgroup.kill of ${cgroup.path} failed: ${failure instanceof Error ? failure.message : String(failure)}`;
    remaining = readCgroupPids(cgroup.path) ?? [];
  }
  const left = new Set(remaining);
  const survivors = unique([
    ...ownerSurvivors.filter(isStillAlive),
    ...remaining.flatMap((pid) => identityOf(pid) ?? []),
  ]);
  return {
    killed: before.filter((member) => !left.has(member.pid)),
    survivors,
    ...(error === undefined ? {} : { error }),
  };
}
