/**
 * Processes of runs that are over which now run as another user: a daemon that double-forked and
 * dropped privileges with setuid() keeps its run's cookie. They are leaked, and the scan must say
 * so, but they are never cleaned (the engine never signals another user's process). Only root can
 * read another user's environ, so only a scan run as root finds them; for anyone else the list is
 * empty, which the CLI states rather than implying there are none.
 */
import type { CookieReader } from '../membership/run-members.js';
import { readLiveStartTime } from '../signal/start-time.js';
import { isZombie, type ProcessTable } from '../table/types.js';
import type { RunIndex } from './run-index.js';

export interface OtherUserLeftover {
  readonly runId: string;
  readonly pid: number;
  readonly startTime: string;
  readonly uid: number;
  readonly args: readonly string[];
  readonly command: string;
}

/** Cookie carriers of `index`'s over runs among the table's processes of other users (root only). */
export function findOtherUserLeftovers(
  table: ProcessTable,
  index: RunIndex,
  readCookies: CookieReader,
  self: number | undefined = typeof process.getuid === 'function' ? process.getuid() : undefined,
): OtherUserLeftover[] {
  if (self !== 0) return [];
  const found: OtherUserLeftover[] = [];
  for (const entry of table.entries.values()) {
    if (entry.uid === self || entry.uid < 0 || isZombie(entry)) continue;
    const runId = readCookies(entry.pid)?.runId;
    if (runId === undefined) continue;
    const run = index.runs.get(runId);
    if (run === undefined || run.over === null) continue;
    // Every carrier descends from the run's root: one older than it only copied the cookie.
    if (run.root !== null && Number(entry.startTime) < Number(run.root.startTime)) continue;
    if (readLiveStartTime(entry.pid) !== entry.startTime) continue;
    found.push({
      runId,
      pid: entry.pid,
      startTime: entry.startTime,
      uid: entry.uid,
      args: entry.args,
      command: entry.command,
    });
  }
  return found;
}
