/**
 * Kills whose answer a test scripts (kill_failed, refused): the real tree owner observes, and
 * the kill of it (`RunDeps.killOwner`) answers what the test says. Used where this machine
 * cannot produce the answer for real.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { OwnerKill } from '../../src/kill/owner-kill.js';
import type { KillOutcome } from '../../src/kill/types.js';
import type { RevalidatingTreeOwner } from '../../src/ownership/tree-owner.js';
import { RUN_ID_ENV } from '../../src/run/types.js';

export function scriptedKill(killOutcome: (owner: RevalidatingTreeOwner) => KillOutcome): OwnerKill {
  return async (owner) => {
    await owner.observe();
    return killOutcome(owner);
  };
}

/** A kill that always "fails": nothing is signalled and the live members are the survivors. */
export const failingKill: OwnerKill = scriptedKill((owner) => ({
  result: 'kill_failed',
  target: owner.root,
  attempts: 2,
  killed: [],
  survivors: owner.members(),
  timeline: [],
  error: 'tree outlived 2 attempts',
  startedAtMs: Date.now(),
  durationMs: 0,
}));

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
