/**
 * The end of a lease: cancel every run still going (the supervisor's revalidated kill), wait for
 * their outcomes with a bound, then sweep until nothing of the lease is left: processes carrying
 * the lease or a run cookie, with cwd inside a run dir, with a run root's recorded identity, or
 * adopted by this guardian, plus their descendants. Each root found is ended with the tree kill.
 */

import { type EndReport, endMembers } from '../ending/end-members.js';
import { findRunMembers, type MemberMatch } from '../membership/run-members.js';
import { removeRunCgroup } from '../run/cgroup.js';
import { endRunCgroup } from '../run/cgroup-end.js';
import type { Run } from '../run/types.js';
import { withDeadline } from '../runtime/wait.js';
import type { ProcessIdentity } from '../table/types.js';
import type { GuardianDeps } from './guardian-deps.js';
import type { LeaseRunInfo } from './registry.js';

/** How long the guardian waits for cancelled runs to report their outcome before sweeping. */
export const RUNS_END_WAIT_MS = 20_000;
/** Sweep passes: a second pass catches what forked while the first one was killing. */
export const SWEEP_ROUNDS = 3;

export interface EndSummary {
  /** Runs that were still going when the lease ended, and were cancelled. */
  readonly runsEnded: string[];
  readonly reports: EndReport[];
  /** Lease members still alive after every pass (empty on success). */
  readonly survivors: ProcessIdentity[];
}

export interface SweepInput {
  readonly lease: string;
  readonly runs: readonly { readonly run: Run; readonly info: LeaseRunInfo }[];
  readonly reason: 'released' | 'holder_died';
  readonly deps: GuardianDeps;
  /**
   * Trees of runs kept past the lease's end (`keepAfterLease`): their identities, root and owned
   * members. They and their descendants are spared like kept descendants are.
   */
  readonly keptTrees?: readonly ProcessIdentity[];
  rootPids(): Set<number>;
}

/** Waits for every promise to settle, but no longer than `ms`. */
async function boundedWait(promises: readonly Promise<unknown>[], ms: number): Promise<void> {
  await withDeadline(Promise.allSettled(promises), ms, 'the runs ending').catch(() => {});
}

function findMembers(input: SweepInput): MemberMatch[] | null {
  const { deps } = input;
  const table = deps.readTable();
  if (table === null) return null;
  return findRunMembers(table, {
    anchors: input.runs.map(({ info }) => ({
      runId: info.runId,
      leaseId: input.lease,
      runDir: info.runDir,
      root: info.pid !== null && info.startTime !== null ? { pid: info.pid, startTime: info.startTime } : null,
    })),
    leaseIds: new Set([input.lease]),
    adopterPids: new Set([deps.self.pid]),
    excludePids: new Set([deps.self.pid]),
    kept: [...input.runs.flatMap(({ info }) => info.kept ?? []), ...(input.keptTrees ?? [])],
    readCookies: deps.readCookies,
  });
}

export async function sweepLease(input: SweepInput): Promise<EndSummary> {
  const going = input.runs.filter(({ run }) => run.phase !== 'ended');
  for (const { run } of going) run.cancel(`lease ${input.reason === 'released' ? 'released' : 'holder died'}`, 'lease');
  await boundedWait(
    going.map(({ run }) => run.outcome),
    RUNS_END_WAIT_MS,
  );
  const reports: EndReport[] = [];
  let members = findMembers(input);
  for (let round = 0; round < SWEEP_ROUNDS && members !== null && members.length > 0; round += 1) {
    reports.push(
      ...(await endMembers(members, {
        killTree: input.deps.killTree,
        ledgerFile: input.deps.paths.ledgerFile,
        actor: { role: 'guardian', pid: input.deps.self.pid, startTime: input.deps.self.startTime },
        reason: `lease_${input.reason}`,
        ...(input.deps.killOptions?.graceMs !== undefined ? { graceMs: input.deps.killOptions.graceMs } : {}),
      })),
    );
    input.deps.containment.reap(zombieChildren(input));
    members = findMembers(input);
  }
  const cgroupSurvivors = await endRunCgroups(input);
  input.deps.containment.reap(zombieChildren(input));
  return {
    runsEnded: going.map(({ info }) => info.runId),
    reports,
    survivors: [
      ...(members ?? []).map(({ entry }) => ({ pid: entry.pid, startTime: entry.startTime })),
      ...cgroupSurvivors,
    ],
  };
}

/**
 * After the tree kills: `cgroup.kill` for each run cgroup still populated (a run's own end
 * normally empties and removes it; a cancelled run that outlived RUNS_END_WAIT_MS, or a member
 * nobody could tie to the lease, is still there). Its membership is exact, so nothing else is hit.
 * Runs that kept descendants on purpose keep them.
 */
async function endRunCgroups(input: SweepInput): Promise<ProcessIdentity[]> {
  const survivors: ProcessIdentity[] = [];
  for (const { run, info } of input.runs) {
    if (run.cgroup == null || (info.kept?.length ?? 0) > 0) continue;
    const end = await endRunCgroup(run.cgroup);
    if (end.error !== undefined) input.deps.log?.(end.error);
    survivors.push(...end.survivors);
    removeRunCgroup(run.cgroup.path);
  }
  return survivors;
}

/** Adopted zombies to reap by pid now that the lease is over (run roots are libuv's to reap). */
function zombieChildren(input: SweepInput): number[] {
  const table = input.deps.readTable();
  if (table === null) return [];
  const roots = input.rootPids();
  return [...table.entries.values()]
    .filter((entry) => entry.ppid === input.deps.self.pid && (entry.state === 'Z' || entry.state === 'X'))
    .filter((entry) => !roots.has(entry.pid))
    .map((entry) => entry.pid);
}
