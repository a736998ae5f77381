/**
 * Checks shared by scenario definitions. Each returns a named verdict with a detail line that
 * reads well in the terminal, whether it passed or not.
 */

import { statSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import type { ScenarioCheck, ScenarioEvidence } from './types.js';

/** A heartbeat that did not grow for this long has stopped (the fixture beats every 50 ms). */
export const HEARTBEAT_QUIET_MS = 400;

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** The fixture processes that make the scenario what it is did start (the demo really happened). */
export function reportedCheck(
  evidence: ScenarioEvidence,
  role: string,
  count = 1,
  name = `${role} reported`,
): ScenarioCheck {
  const found = evidence.reports.filter((report) => report.role === role);
  return {
    name,
    ok: found.length >= count,
    detail:
      found.length >= count
        ? `${found.length} × ${role}: pid ${found
            .slice(0, 8)
            .map((report) => report.pid)
            .join(' ')}${found.length > 8 ? ' …' : ''}`
        : `expected ${count} × ${role}, saw ${found.length} (the tree was not fully up before it was ended)`,
  };
}

/** The heartbeat file stops growing: its writer is really dead, not just reparented. */
export async function heartbeatQuietCheck(path: string): Promise<ScenarioCheck> {
  const before = sizeOf(path);
  await delay(HEARTBEAT_QUIET_MS);
  const after = sizeOf(path);
  return {
    name: 'heartbeat went quiet',
    ok: before > 0 && after === before,
    detail:
      after === before
        ? `${after} beats written, none in the last ${HEARTBEAT_QUIET_MS} ms`
        : `still beating: ${after - before} new beat(s) in ${HEARTBEAT_QUIET_MS} ms after the end`,
  };
}

/** Members ran in more than one session: the escape really happened. */
export function escapedCheck(evidence: ScenarioEvidence): ScenarioCheck {
  const sessions = new Set(evidence.seen.map((process) => process.sid));
  return {
    name: 'a member escaped into its own session',
    ok: sessions.size > 1,
    detail: `${sessions.size} session(s) seen: ${[...sessions].join(' ')}`,
  };
}

/** The kill timeline escalated to SIGKILL (a SIGTERM alone did not end the tree). */
export function escalatedCheck(evidence: ScenarioEvidence): ScenarioCheck {
  const actions = evidence.outcome.killTimeline.map((entry) => entry.action);
  const escalated = actions.includes('SIGTERM') && actions.includes('SIGKILL');
  return {
    name: 'SIGTERM then SIGKILL',
    ok: escalated,
    detail: actions.length > 0 ? `kill timeline: ${actions.join(' → ')}` : 'no kill timeline recorded',
  };
}

export function textCheck(name: string, text: string, pattern: RegExp): ScenarioCheck {
  const match = pattern.exec(text);
  return {
    name,
    ok: match !== null,
    detail: match !== null ? `found ${JSON.stringify(match[0])}` : `${pattern} not found in ${text.length} chars`,
  };
}
