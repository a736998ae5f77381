/**
 * Children without reading them (Linux), for the focused read of a process it followed last tick.
 * A process gains a child only by a fork (a new pid, whose stat names its parent; new-pids.ts says
 * how new processes are known) or by adopting an orphan. Orphans go to a subreaper ancestor of
 * the dead parent, else to the dead parent's pid-namespace init (pid 1 for ours). The adopters
 * (pid 1, known subreapers) and namespace inits are always read exactly: they adopt processes
 * nobody followed. Any other follower can adopt only as a subreaper, and then only its own
 * descendants, which the last read followed too (it follows every child of what it follows), so
 * their stat this tick shows the move. Threads change nothing: ppid names the thread group.
 * Hence, for a process followed last tick under the same identity, its children now are exactly
 * the processes followed last tick or new since whose ppid now names it.
 */
import { type StatsThisTick, statOf } from './tick-stats.js';

export interface Followed {
  /** pid → start time of every process whose children the last read found (all of them followed). */
  readonly startTicks: ReadonlyMap<number, string>;
}

/** This tick's derivation: children by parent among last tick's followed and the new pids. */
export interface Derivation {
  readonly before: ReadonlyMap<number, string>;
  readonly byParent: ReadonlyMap<number, readonly number[]>;
}

export function deriveChildren(followed: Followed, newPids: readonly number[], stats: StatsThisTick): Derivation {
  const byParent = new Map<number, number[]>();
  const add = (pid: number) => {
    const stat = statOf(pid, stats);
    if (stat === null) return;
    const siblings = byParent.get(stat.ppid);
    if (siblings === undefined) byParent.set(stat.ppid, [pid]);
    else siblings.push(pid);
  };
  for (const pid of followed.startTicks.keys()) add(pid);
  for (const pid of newPids) if (!followed.startTicks.has(pid)) add(pid);
  return { before: followed.startTicks, byParent };
}
