/**
 * Owners whose kill answer a test scripts (kill_failed, refused): the real tree owner for
 * observation, with `kill` replaced. Used where this machine cannot produce the answer for real.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { KillOutcome, TreeOwner, TreeOwnerOptions } from '../../src/kill/types.js';
import { createTreeOwner } from '../../src/ownership/tree-owner.js';
import { RUN_ID_ENV } from '../../src/run/types.js';
import type { ProcessIdentity } from '../../src/table/types.js';

export function createScriptedKillOwner(
  root: ProcessIdentity,
  options: TreeOwnerOptions,
  killOutcome: (owner: TreeOwner) => KillOutcome,
): TreeOwner {
  const real = createTreeOwner(root, options);
  const owner: TreeOwner = {
    ...real,
    async kill() {
      await real.observe();
      return killOutcome(real);
    },
  };
  return owner;
}

/** An owner whose every kill "fails": nothing is signalled and the live members are the survivors. */
export function createFailingKillOwner(root: ProcessIdentity, options: TreeOwnerOptions): TreeOwner {
  return createScriptedKillOwner(root, options, (owner) => ({
    result: 'kill_failed',
    target: root,
    attempts: 2,
    killed: [],
    survivors: owner.members(),
    timeline: [],
    error: 'tree outlived 2 attempts',
    startedAtMs: Date.now(),
    durationMs: 0,
  }));
}

function carriesCookie(pid: number, runId: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`${RUN_ID_ENV}=${runId}`);
  } catch {
    return false;
  }
}

/** Pids under /proc carrying the run cookie (for "nothing launched" checks). */
export function cookieCarriers(runId: string): number[] {
  return readdirSync('/proc')
    .map(Number)
    .filter((pid) => Number.isInteger(pid) && carriesCookie(pid, runId));
}
