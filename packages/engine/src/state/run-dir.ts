/**
 * Which recorded run directories are believed. A run dir is evidence for the leak check ("cwd
 * inside the run's private dir"), so a record naming `/tmp`, `runs/../..` or `runs/x` where `x` is
 * a symlink to somewhere else would make an unrelated process look leaked. Only a directory that
 * really lies inside the runs dir, after resolving every symlink, is accepted.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, normalize } from 'node:path';
import type { StatePaths } from './state-dir.js';
import { isInsideDir } from './state-dir.js';

/** Maps a recorded run dir to its real path inside the runs dir, or null when it is not one. */
export type RunDirResolver = (recorded: string) => string | null;

function realpathOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** Resolves the runs dir once; each recorded dir is then checked lexically and by its realpath. */
export function createRunDirResolver(paths: StatePaths): RunDirResolver {
  const realRunsDir = realpathOrNull(paths.runsDir);
  return (recorded) => {
    if (!isAbsolute(recorded) || normalize(recorded) !== recorded || recorded.endsWith('/')) return null;
    // Exactly one segment below runs/: a run dir is named by its run id.
    if (!isInsideDir(recorded, paths.runsDir) || recorded.slice(paths.runsDir.length + 1).includes('/')) return null;
    if (recorded === paths.runsDir) return null;
    if (realRunsDir === null) return null;
    const real = realpathOrNull(recorded);
    // A run dir that no longer exists cannot hide a symlink; its processes show "(deleted)" cwds.
    if (real === null) return realRunsDir + recorded.slice(paths.runsDir.length);
    return isInsideDir(real, realRunsDir) && real !== realRunsDir ? real : null;
  };
}
