/**
 * Removes the empty cgroups that runs which are over left under `<parent>/treewarden` (a run
 * whose kill left survivors, or whose supervisor died, cannot remove its own). Populated ones are
 * never touched: those are leaks, for `orphans` to report and end.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isCgroupPopulated, removeRunCgroup } from './cgroup.js';
import { CGROUP_HOME_NAME } from './cgroup-probe.js';

/**
 * An empty run cgroup older than this belongs to a run that is over: a live run's cgroup is
 * empty only between its creation and the shim entering it (milliseconds), or while it is being
 * removed. Younger ones are left alone so a sweep never races a run being launched.
 */
export const CGROUP_LEFTOVER_MIN_AGE_MS = 60_000;

/**
 * Removes the empty cgroups of runs that are over (older than CGROUP_LEFTOVER_MIN_AGE_MS, or
 * named in `overRunIds`) under `<parent>/treewarden`; returns the paths removed. Populated ones
 * stay: those are leaks, for `orphans` to report.
 */
export function sweepEmptyRunCgroups(
  parentPath: string,
  overRunIds: ReadonlySet<string> = new Set(),
  nowMs: number = Date.now(),
): string[] {
  const home = join(parentPath, CGROUP_HOME_NAME);
  let names: string[];
  try {
    names = readdirSync(home, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const path = join(home, name);
    if (isCgroupPopulated(path) !== false) continue;
    if (!overRunIds.has(name) && !isOlderThan(path, CGROUP_LEFTOVER_MIN_AGE_MS, nowMs)) continue;
    if (removeRunCgroup(path)) removed.push(path);
  }
  return removed;
}

function isOlderThan(path: string, ageMs: number, nowMs: number): boolean {
  try {
    return nowMs - statSync(path).ctimeMs >= ageMs;
  } catch {
    return false;
  }
}
