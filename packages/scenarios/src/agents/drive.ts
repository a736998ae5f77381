/**
 * The driver every agent-leak scenario shares: start a doomed fake Claude session, a second one
 * that stays live and an unrelated marker-less process; let the engine observe them (a private
 * state dir in the scenario's directory, never the user's); end the doomed root the scenario's
 * way; judge leaks with the engine. Treewarden mode ends the doomed session's leak with the
 * engine's agent clean-up (what `treewarden orphans --clean` does); naive mode only computes what
 * the `pkill -f` patterns users post would hit. The facts go to the checks (facts.ts); last, the
 * scenario ends the bystanders it started itself.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  type AgentLeak,
  type AgentRules,
  cleanAgentLeaks,
  isZombie,
  type LiveSession,
  loadAgentRules,
  markerReaderFor,
  type ObserveContext,
  observeAgentsOnce,
  pollUntil,
  readProcEntry,
} from '@treewarden/engine';
import { scanScenario } from '../census.js';
import { sweepScenario } from '../cleanup.js';
import type { DriverTools, ScenarioCheck, ScenarioContext, ScenarioOutcomeFacts } from '../types.js';
import { type FakeSession, startFakeClaude, startUnrelated } from './cast.js';
import { agentOutcomeFacts, stepProcessResults } from './drive-outcome.js';
import { type AgentLeakFacts, castOf, type Identity, leakFactsBase, naiveOutcome, recordFacts } from './facts.js';

/** The doomed root (and, for a hang-up, its whole group) dies after its signal. */
const END_WAIT_MS = 10_000;
/** Cleanup grace: the demo is over, TERM then KILL quickly. */
const CLEAN_GRACE_MS = 1000;
const POLL_MS = 100;

export interface AgentLeakPlan {
  readonly subagents: number;
  /** argv label of the unrelated process: what the pkill patterns of this scenario catch. */
  readonly unrelatedLabel: string;
  readonly pkillPatterns: readonly string[];
  /** Ends the doomed session's root the scenario's way; resolves once what it ended is gone. */
  readonly end: (doomed: FakeSession, tools: DriverTools) => Promise<void>;
  /** A scenario-specific look at the leak before anyone ends it (both modes). */
  readonly probeLeak?: (doomed: FakeSession) => Promise<ScenarioCheck>;
  /** The same look after the engine's clean-up (Treewarden mode). */
  readonly probeCleaned?: (doomed: FakeSession) => Promise<ScenarioCheck>;
}

export function isLive(identity: Identity): boolean {
  const entry = readProcEntry(identity.pid);
  return entry !== null && entry.startTime === identity.startTime && !isZombie(entry);
}

export function identityOf(pid: number): Identity | null {
  const entry = readProcEntry(pid);
  return entry === null || isZombie(entry) ? null : { pid, startTime: entry.startTime };
}

/** Waits until `pid` is gone (or a zombie); throws past END_WAIT_MS. */
export async function waitGone(pid: number, what: string, tools: DriverTools): Promise<void> {
  const gone = await pollUntil(() => identityOf(pid) === null, {
    deadlineMs: END_WAIT_MS,
    intervalMs: POLL_MS,
    signal: tools.signal,
  });
  if (gone === null) throw new Error(`${what} (${pid}) did not end within ${END_WAIT_MS} ms`);
}

/** The doomed and the live session as the engine recognises them now; throws when either is missing. */
export function recogniseBoth(
  context: ObserveContext,
  doomed: FakeSession,
  live: FakeSession,
  tools: DriverTools,
  what: string,
): { readonly doomedSession: LiveSession; readonly liveSession: LiveSession } {
  const before = observeAgentsOnce(context);
  const doomedSession = before.live.find((session) => session.root.pid === doomed.rootPid);
  const liveSession = before.live.find((session) => session.root.pid === live.rootPid);
  if (doomedSession === undefined || liveSession === undefined)
    throw new Error(`the engine did not recognise both ${what}`);
  tools.step(
    `engine sees session ${doomedSession.id}: ${doomedSession.members.map((m) => `${m.entry.pid} ${m.role}`).join(', ')}`,
  );
  return { doomedSession, liveSession };
}

export function observeContext(ctx: ScenarioContext): ObserveContext & { rules: AgentRules } {
  const stateRoot = join(ctx.dir, 'state');
  mkdirSync(stateRoot, { recursive: true, mode: 0o700 });
  const { rules } = loadAgentRules(stateRoot);
  return { stateRoot, rules, readMarkers: markerReaderFor(rules) };
}

/** The doomed session's leak, and nothing else the engine may have found on this machine. */
function doomedLeak(leaks: readonly AgentLeak[], sessionId: string, scenarioPids: ReadonlySet<number>): AgentLeak {
  const leak = leaks.find((candidate) => candidate.sessionId === sessionId);
  if (leak === undefined) throw new Error(`the engine found no leak of session ${sessionId}`);
  const foreign = leak.processes.filter(({ entry }) => !scenarioPids.has(entry.pid));
  // Never signal outside the sandbox: a leak naming a process the scenario did not start is refused.
  if (foreign.length > 0)
    throw new Error(`the leak names processes outside the scenario: ${foreign.map((p) => p.entry.pid).join(' ')}`);
  return leak;
}

export async function driveAgentLeak(
  ctx: ScenarioContext,
  tools: DriverTools,
  plan: AgentLeakPlan,
): Promise<ScenarioOutcomeFacts> {
  const startedAt = Date.now();
  const context = observeContext(ctx);
  const doomed = await startFakeClaude(ctx, tools, context.rules, 'doomed-project', plan.subagents);
  const live = await startFakeClaude(ctx, tools, context.rules, 'live-project', 1);
  const unrelated = await startUnrelated(ctx, tools, context.rules, plan.unrelatedLabel);
  tools.step(`fake Claude sessions up: doomed root ${doomed.rootPid}, live root ${live.rootPid}`);
  tools.step(`unrelated marker-less process ${unrelated.pid} (${plan.unrelatedLabel}), reparented away`);

  const { doomedSession, liveSession } = recogniseBoth(context, doomed, live, tools, 'fake Claude sessions');

  await plan.end(doomed, tools);
  // The scenario's own processes, read on both sides of the leak judgement: a member that exits
  // in between (the wrapper's `sh -c` once the wrapper is gone) is still one of ours, not foreign.
  const scannedBefore = scanScenario(ctx.runId, ctx.dir);
  const after = observeAgentsOnce(context);
  const scenarioPids = new Set([...scannedBefore, ...scanScenario(ctx.runId, ctx.dir)].map((entry) => entry.pid));
  const leak = doomedLeak(after.leaks, doomedSession.id, scenarioPids);
  for (const { entry, role, reasons } of leak.processes)
    tools.step(`leaked ${entry.pid} ${role}: ${reasons.slice(0, 3).join('; ')}`);
  const unrelatedIdentity = identityOf(unrelated.pid);
  const cast = castOf(leak, liveSession, unrelatedIdentity, plan.unrelatedLabel);
  const probes: ScenarioCheck[] = plan.probeLeak === undefined ? [] : [await plan.probeLeak(doomed)];
  const base = leakFactsBase({ probes, doomed, doomedSession, liveSession, leak, unrelated: unrelatedIdentity, after });

  if (ctx.mode === 'naive')
    return naiveOutcome(ctx, tools, { startedAt, patterns: plan.pkillPatterns, cast, scenarioPids, base });

  tools.step(`engine clean-up (as treewarden orphans --clean): ${leak.processes.length} leaked process(es)`);
  const [cleaned] = await cleanAgentLeaks([leak], { graceMs: CLEAN_GRACE_MS });
  stepProcessResults(tools, cleaned?.processes ?? []);
  const afterClean = snapshotLiveness(base);
  if (plan.probeCleaned !== undefined) probes.push(await plan.probeCleaned(doomed));
  recordFacts(ctx, { ...base, cleaned: cleaned ?? null, afterClean });
  tools.step('scenario teardown: ending the live session and the unrelated process it started');
  await sweepScenario(ctx.runId, ctx.dir);
  const ok = cleaned !== undefined && cleaned.survivors.length === 0;
  return agentOutcomeFacts(startedAt, ok ? 'ok' : 'kill_failed', cast, undefined);
}

function snapshotLiveness(base: Omit<AgentLeakFacts, 'cleaned'>): AgentLeakFacts['afterClean'] {
  const leaked = base.leak.processes.map(({ entry }) => ({ pid: entry.pid, startTime: entry.startTime }));
  return {
    leakedAlive: leaked.filter(isLive).map((identity) => identity.pid),
    liveAlive: base.liveIdentities.filter(isLive).map((identity) => identity.pid),
    unrelatedAlive: base.unrelated !== null && isLive(base.unrelated),
  };
}
