/** One focused read's stat lines by pid, shared by its parts (each process's stat read once per tick). */
import { readStatFields, type StatFields } from '../../table/linux-stat.js';

/**
 * One read's stat lines by pid: a process whose entry was read and whose children are then
 * followed needs its stat once per tick, not twice (the stat read is most of a tick's cost).
 */
export type StatsThisTick = Map<number, StatFields | null>;

export function statOf(pid: number, stats: StatsThisTick): StatFields | null {
  let stat = stats.get(pid);
  if (stat === undefined) {
    stat = readStatFields(pid);
    stats.set(pid, stat);
  }
  return stat;
}
