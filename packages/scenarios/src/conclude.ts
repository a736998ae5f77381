/**
 * The end of every scenario, whatever happened before: the survivor census, the scenario's own
 * checks, the engine's cleanup sweep (always, even when a check throws), and the verdict.
 */
import { pollUntil } from '@treewarden/engine';
import { type CensusEntry, liveMembers, scanScenario } from './census.js';
import { sweepScenario } from './cleanup.js';
import { judge, type ScenarioResult, toCleanupReport, toSurvivorInfo } from './result.js';
import type { Session } from './session.js';
import type { ScenarioCheck, ScenarioEvidence, ScenarioOutcomeFacts } from './types.js';

/** After the run ended, members being reaped get this long to disappear before they count as survivors. */
export const SURVIVOR_SETTLE_MS = 750;
const SETTLE_POLL_MS = 150;

async function settleSurvivors(session: Session): Promise<ReturnType<typeof liveMembers>> {
  let live: ReturnType<typeof liveMembers> = [];
  await pollUntil(
    () => {
      live = liveMembers(scanScenario(session.sandbox.runId, session.sandbox.dir));
      return live.length === 0;
    },
    { deadlineMs: SURVIVOR_SETTLE_MS, intervalMs: SETTLE_POLL_MS },
  );
  return live;
}

async function runChecks(session: Session, evidence: ScenarioEvidence | null): Promise<ScenarioCheck[]> {
  const { check } = session.definition;
  if (check === undefined || evidence === null) return [];
  try {
    return await check(evidence);
  } catch (error) {
    // A check that throws is a failed check, never a skipped cleanup.
    return [{ name: 'scenario checks', ok: false, detail: `threw: ${(error as Error).message}` }];
  }
}

function describeSurvivors(survivors: readonly CensusEntry[]): string {
  if (survivors.length === 0) return 'census: nothing of this scenario is alive';
  return `census: ${survivors.length} process(es) SURVIVED: ${survivors.map((s) => `${s.pid} ${s.command}`).join(', ')}`;
}

export async function concludeScenario(
  session: Session,
  outcome: ScenarioOutcomeFacts | null,
  /** Why the worker or driver threw, if it did: the scenario then fails whatever else happened. */
  failure: string | null,
): Promise<ScenarioResult> {
  const { definition, sandbox } = session;
  let survivors: CensusEntry[] = [];
  let checks: ScenarioCheck[] = [];
  try {
    survivors = await settleSurvivors(session);
    session.watch.poll();
    session.step(describeSurvivors(survivors));
    // Without an outcome (the worker or driver failed) there is nothing for the checks to judge.
    const evidence: ScenarioEvidence | null =
      outcome === null ? null : { ctx: sandbox, outcome, reports: sandbox.readReports(), seen: session.watch.seen() };
    checks = await runChecks(session, evidence);
    for (const check of checks) session.step(`check ${check.ok ? 'ok' : 'FAILED'}: ${check.name} — ${check.detail}`);
  } finally {
    session.watch.stop();
  }
  const sweep = await sweepScenario(sandbox.runId, sandbox.dir);
  if (sweep.found.length > 0 || sweep.survivors.length > 0) {
    session.step(
      `engine cleanup: ${sweep.found.length} process(es) found, ${sweep.kills.length} tree kill(s), ${sweep.survivors.length} left`,
    );
  }
  // Keep the directory while something still works in it: the cwd scan is how it is found.
  if (sweep.survivors.length === 0) sandbox.remove();
  const cleanup = toCleanupReport(sweep);
  const actual = { classification: outcome?.classification ?? null, nothingSurvives: survivors.length === 0 };
  const verdict = {
    mode: sandbox.mode,
    expected: definition.expected,
    actual,
    checks,
    cleanup,
    boundsExceeded: session.boundsExceeded,
    interrupted: session.interrupted,
  };
  return {
    name: definition.name,
    title: definition.title,
    mode: sandbox.mode,
    runId: sandbox.runId,
    dir: sandbox.dir,
    available: true,
    skippedReason: null,
    expected: definition.expected,
    actual,
    outcome,
    survivors: survivors.map(toSurvivorInfo),
    cleanup,
    checks,
    steps: [...session.steps].sort((a, b) => a.atMs - b.atMs),
    seen: session.watch.seen(),
    peakProcesses: session.watch.peak(),
    boundsExceeded: session.boundsExceeded,
    interrupted: session.interrupted,
    passed: failure === null && judge(verdict),
    durationMs: Date.now() - sandbox.startedAtMs,
  };
}
