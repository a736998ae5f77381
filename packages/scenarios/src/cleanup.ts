/**
 * Ends everything a scenario started, with the engine's revalidated tree kill: after a naive
 * demo, after an interrupted one (Ctrl-C, window closed), and as the last word of every run.
 * The cookie lets one kill reach every carrier, wherever it hid; processes found only by their
 * cwd (an environment cleared on purpose) get a kill of their own.
 */

import type { KillOutcome } from '@treewarden/engine';
import { isZombie, killTree, readProcEntry } from '@treewarden/engine';
import { type CensusEntry, liveMembers, scanScenario } from './census.js';

/** Sweeps before giving up: each one re-reads the census, so late forks are caught. */
export const SWEEP_ROUNDS = 4;
/** Grace for cleanup kills: the demo is over, so TERM-then-KILL quickly. */
export const CLEANUP_GRACE_MS = 300;

export interface SweepResult {
  /** Live processes found by the first census, before anything was signalled. */
  readonly found: readonly CensusEntry[];
  readonly kills: readonly KillOutcome[];
  /** Live processes after the last round; empty when the sweep worked. */
  readonly survivors: readonly CensusEntry[];
  readonly durationMs: number;
}

/** Still the process the census saw (an earlier kill of the round often took it with its tree). */
function stillLive(target: CensusEntry): boolean {
  const entry = readProcEntry(target.pid);
  return entry !== null && entry.startTime === target.startTime && !isZombie(entry);
}

async function killQuietly(target: CensusEntry, runId: string): Promise<KillOutcome | null> {
  // Each kill observes the whole table first: skipping the ones already gone keeps a sweep of a
  // browser's tree (a dozen processes found by their cwd) to a few kills instead of one each.
  if (!stillLive(target)) return null;
  try {
    return await killTree({ pid: target.pid, startTime: target.startTime }, { runId, graceMs: CLEANUP_GRACE_MS });
  } catch {
    // Refused or raced: the next round re-reads the census and tries again.
    return null;
  }
}

/** Kills one target per distinct reason for belonging; the cookie reaches all carriers at once. */
function pickTargets(live: readonly CensusEntry[]): CensusEntry[] {
  const carrier = live.find((entry) => entry.why === 'cookie');
  const others = live.filter((entry) => entry.why !== 'cookie');
  return carrier === undefined ? others : [carrier, ...others];
}

export async function sweepScenario(runId: string, dir: string): Promise<SweepResult> {
  const startedAt = Date.now();
  const found = liveMembers(scanScenario(runId, dir));
  const kills: KillOutcome[] = [];
  let live = found;
  for (let round = 0; round < SWEEP_ROUNDS && live.length > 0; round += 1) {
    for (const target of pickTargets(live)) {
      const outcome = await killQuietly(target, runId);
      if (outcome !== null) kills.push(outcome);
    }
    live = liveMembers(scanScenario(runId, dir));
  }
  return { found, kills, survivors: live, durationMs: Date.now() - startedAt };
}
