/**
 * The driver of the scenarios about what agents start beside their own tree (a browser under a
 * browser MCP server, a `tsx watch`-shaped watcher): a doomed fake Claude session running the
 * tool (the engine's fake-claude-tools fixture), a second session whose tool stays in use, and a
 * person's own copy of the same tool, started by no agent. While the sessions live, the plan may
 * judge them (fd-hog). Then the doomed session's root (and the plan's other processes, its MCP
 * server) are SIGKILLed; the tool runs on. Treewarden mode ends exactly the session's leftovers
 * with the engine's agent clean-up (what `treewarden orphans --clean` does); naive mode computes
 * what the `pkill -f` patterns users post would hit. Every process runs with HOME, TMPDIR and the
 * XDG directories inside the scenario's directory, so nothing is written outside it.
 */

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  type AgentLeak,
  cleanAgentLeaks,
  type LiveSession,
  type ObserveContext,
  observeAgentsOnce,
  pollUntil,
} from '@treewarden/engine';
import { scanScenario } from '../census.js';
import { sweepScenario } from '../cleanup.js';
import type { DriverTools, ScenarioCheck, ScenarioContext, ScenarioOutcomeFacts } from '../types.js';
import { type FakeSession, installStub, launchOrphanedRoot, markerFreeEnv, waitForRoles } from './cast.js';
import { identityOf, isLive, observeContext, recogniseBoth, waitGone } from './drive.js';
import { agentOutcomeFacts, stepProcessResults } from './drive-outcome.js';
import { castOf, type Identity, leakFactsBase, naiveOutcome, recordFacts } from './facts.js';

const CLEAN_GRACE_MS = 1000;
/** The engine judges the leftovers once the killed processes are gone; a loaded machine may lag. */
const LEAK_WAIT_MS = 10_000;
const POLL_MS = 200;

export type SessionKind = 'doomed' | 'live';

/** A person's own copy of the tool: its main process and the label it is shown under. */
export interface PersonalTool extends Identity {
  readonly label: string;
  readonly command: string;
  /** The processes below it (a browser's zygotes, renderers, crashpad handlers). */
  readonly below?: readonly (Identity & { readonly command: string })[];
}

export interface ToolPlan {
  /** The fixture's environment for one session (TOOLS_*), its directory being `dir`. */
  readonly sessionEnv: (dir: string, kind: SessionKind) => Record<string, string>;
  /** Reports each session writes once its tool is up. */
  readonly wanted: Readonly<Record<string, number>>;
  /** Resolves once the session's tool is wholly up (Chromium's zygotes and renderers). */
  readonly ready?: (session: FakeSession, tools: DriverTools) => Promise<void>;
  /** Starts the person's own copy (no agent marker, reparented away); resolves once it is up. */
  readonly startPersonal: (ctx: ScenarioContext, env: NodeJS.ProcessEnv, tools: DriverTools) => Promise<PersonalTool>;
  /** Checks made while both sessions live (both modes). */
  readonly whileLive?: (
    context: ObserveContext,
    sessions: { readonly doomed: LiveSession; readonly live: LiveSession; readonly personal: PersonalTool },
    doomed: FakeSession,
    tools: DriverTools,
  ) => ScenarioCheck[];
  /** Pids SIGKILLed with the root, before it (its MCP server). */
  readonly killWithRoot: (doomed: FakeSession) => readonly number[];
  /** The leak is complete once this holds (the browser's main process is in it). */
  readonly leakComplete: (leak: AgentLeak, doomed: FakeSession) => boolean;
  /** Looks at the leftovers before anyone ends them (both modes). */
  readonly probeLeak: (leak: AgentLeak, doomed: FakeSession) => ScenarioCheck[];
  /** The same look after the engine's clean-up (Treewarden mode). */
  readonly probeCleaned?: (personal: PersonalTool) => ScenarioCheck[];
  readonly pkillPatterns: readonly string[];
}

/** HOME, TMPDIR and XDG directories inside the scenario's directory. */
function privateHome(ctx: ScenarioContext): Record<string, string> {
  const home = join(ctx.dir, 'home');
  const tmp = join(ctx.dir, 'tmp');
  for (const dir of [home, tmp]) mkdirSync(dir, { recursive: true });
  return {
    HOME: home,
    TMPDIR: tmp,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
  };
}

async function startSession(
  ctx: ScenarioContext,
  tools: DriverTools,
  plan: ToolPlan,
  name: string,
  kind: SessionKind,
): Promise<FakeSession> {
  const { rules } = observeContext(ctx);
  const { dir, stub } = installStub(ctx, name, 'agents/fake-claude-tools.mjs');
  const reportFile = join(ctx.dir, `${name}-report.jsonl`);
  const env = { ...markerFreeEnv(ctx, rules, reportFile), ...privateHome(ctx), ...plan.sessionEnv(dir, kind) };
  const rootPid = await launchOrphanedRoot(ctx, stub, dir, env);
  const reports = await waitForRoles(reportFile, plan.wanted, tools, `the session "${name}"`);
  const session = { name, dir, rootPid, reports };
  await plan.ready?.(session, tools);
  return session;
}

/** The doomed session's leftovers, once complete; refused when it names a process the scenario did not start. */
async function judgeLeak(
  ctx: ScenarioContext,
  context: ObserveContext,
  plan: ToolPlan,
  doomed: FakeSession,
  sessionId: string,
  tools: DriverTools,
) {
  let scenarioPids = new Set<number>();
  const found = await pollUntil(
    () => {
      const scannedBefore = scanScenario(ctx.runId, ctx.dir);
      const after = observeAgentsOnce(context);
      scenarioPids = new Set([...scannedBefore, ...scanScenario(ctx.runId, ctx.dir)].map((entry) => entry.pid));
      const leak = after.leaks.find((candidate) => candidate.sessionId === sessionId);
      return leak !== undefined && plan.leakComplete(leak, doomed) ? { leak, after } : null;
    },
    { deadlineMs: LEAK_WAIT_MS, intervalMs: POLL_MS, signal: tools.signal },
  );
  if (found === null) throw new Error(`the engine found no complete leftovers of session ${sessionId}`);
  const foreign = found.leak.processes.filter(({ entry }) => !scenarioPids.has(entry.pid));
  if (foreign.length > 0)
    throw new Error(`the leak names processes outside the scenario: ${foreign.map((p) => p.entry.pid).join(' ')}`);
  return { ...found, scenarioPids };
}

export async function driveToolLeftover(
  ctx: ScenarioContext,
  tools: DriverTools,
  plan: ToolPlan,
): Promise<ScenarioOutcomeFacts> {
  const startedAt = Date.now();
  const context = observeContext(ctx);
  const personalEnv = { ...markerFreeEnv(ctx, context.rules, ctx.reportFile), ...privateHome(ctx) };
  // All three at once: each waits for its own tool (a browser takes seconds on a loaded machine).
  const [doomed, live, personal] = await Promise.all([
    startSession(ctx, tools, plan, 'doomed-project', 'doomed'),
    startSession(ctx, tools, plan, 'live-project', 'live'),
    plan.startPersonal(ctx, personalEnv, tools),
  ]);
  tools.step(`fake Claude sessions up: doomed root ${doomed.rootPid}, live root ${live.rootPid}`);
  tools.step(`a person's own ${personal.label} ${personal.pid}, started by no agent: ${personal.command}`);

  const { doomedSession, liveSession } = recogniseBoth(context, doomed, live, tools, 'fake Claude sessions');
  const probes = [
    ...(plan.whileLive?.(context, { doomed: doomedSession, live: liveSession, personal }, doomed, tools) ?? []),
  ];

  const killed = [...plan.killWithRoot(doomed), doomed.rootPid];
  tools.step(`SIGKILL ${killed.join(' ')} (the agent root last): what they started runs on`);
  for (const pid of killed) {
    const identity = identityOf(pid);
    if (identity !== null) process.kill(identity.pid, 'SIGKILL');
  }
  for (const pid of killed) await waitGone(pid, 'a killed process', tools);

  const { leak, after, scenarioPids } = await judgeLeak(ctx, context, plan, doomed, doomedSession.id, tools);
  for (const { entry, role, reasons } of leak.processes)
    tools.step(`leftover ${entry.pid} ${role}: ${reasons.slice(0, 2).join('; ')}`);
  probes.push(...plan.probeLeak(leak, doomed));
  const personalIdentity = identityOf(personal.pid);
  const cast = [
    ...castOf(leak, liveSession, personalIdentity, personal.label).map((member) =>
      member.role === 'unrelated' ? { ...member, command: personal.command } : member,
    ),
    ...(personal.below ?? []).map((identity) => ({ ...identity, role: 'unrelated' as const })),
  ];
  const base = leakFactsBase({
    probes,
    doomed,
    doomedSession,
    liveSession,
    leak,
    unrelated: personalIdentity,
    after,
  });
  const { liveIdentities } = base;

  if (ctx.mode === 'naive')
    return naiveOutcome(ctx, tools, { startedAt, patterns: plan.pkillPatterns, cast, scenarioPids, base });

  tools.step(`engine clean-up (as treewarden orphans --clean): ${leak.processes.length} leftover process(es)`);
  const [cleaned] = await cleanAgentLeaks([leak], { graceMs: CLEAN_GRACE_MS });
  stepProcessResults(tools, cleaned?.processes ?? []);
  const leakedIds = leak.processes.map(({ entry }) => ({ pid: entry.pid, startTime: entry.startTime }));
  probes.push(...(plan.probeCleaned?.(personal) ?? []));
  recordFacts(ctx, {
    ...base,
    cleaned: cleaned ?? null,
    afterClean: {
      leakedAlive: leakedIds.filter(isLive).map((identity) => identity.pid),
      liveAlive: liveIdentities.filter(isLive).map((identity) => identity.pid),
      unrelatedAlive: personalIdentity !== null && isLive(personalIdentity),
    },
  });
  tools.step(`scenario teardown: ending the live session and the person's own ${personal.label} it started`);
  const swept = await sweepScenario(ctx.runId, ctx.dir);
  tools.step(`  ${swept.found.length} process(es) ended in ${swept.durationMs} ms`);
  const ok = cleaned !== undefined && cleaned.survivors.length === 0;
  return agentOutcomeFacts(startedAt, ok ? 'ok' : 'kill_failed', cast, undefined);
}
