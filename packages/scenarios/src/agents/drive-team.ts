/**
 * The agent-team driver: a doomed fake Claude team lead whose team tmux server (a real tmux on a
 * private socket in the scenario's directory, `claude-swarm-<lead pid>`) runs a teammate in its
 * pane, a second lead whose team stays live, and a person's own tmux server nobody's agent started.
 * The doomed lead is SIGKILLed; tmux had daemonised its server, so nothing ends it: the server and
 * its teammate run on. Treewarden mode ends exactly that team's server and panes with the engine's
 * agent clean-up; naive mode computes what `pkill -f tmux` and `pkill -f claude-swarm` would hit.
 */

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { cleanAgentLeaks, observeAgentsOnce } from '@treewarden/engine';
import { scanScenario } from '../census.js';
import { sweepScenario } from '../cleanup.js';
import type { DriverTools, ScenarioContext, ScenarioOutcomeFacts } from '../types.js';
import { type FakeSession, installStub, launchOrphanedRoot, markerFreeEnv, waitForRoles } from './cast.js';
import { identityOf, isLive, observeContext, recogniseBoth, waitGone } from './drive.js';
import { agentOutcomeFacts, stepProcessResults } from './drive-outcome.js';
import { castOf, leakFactsBase, naiveOutcome, recordFacts } from './facts.js';

const CLEAN_GRACE_MS = 1000;
export const PERSONAL_TMUX_LABEL = 'my-own-tmux';
export const TEAM_PKILL_PATTERNS = ['tmux', 'claude-swarm'] as const;

async function startLead(ctx: ScenarioContext, tools: DriverTools, name: string): Promise<FakeSession> {
  const { rules } = observeContext(ctx);
  const { dir, stub } = installStub(ctx, name, 'team-lead.mjs');
  const reportFile = join(ctx.dir, `${name}-report.jsonl`);
  const env = { ...markerFreeEnv(ctx, rules, reportFile), TEAM_SOCKET_DIR: ctx.dir };
  const rootPid = await launchOrphanedRoot(ctx, stub, dir, env);
  const reports = await waitForRoles(reportFile, { 'claude-root': 1, teammate: 1 }, tools, `the team lead "${name}"`);
  return { name, dir, rootPid, reports };
}

/** A person's own tmux server (their editor session): no agent started it. */
function startPersonalTmux(ctx: ScenarioContext): number | null {
  const { rules } = observeContext(ctx);
  const socket = join(ctx.dir, PERSONAL_TMUX_LABEL);
  const env = markerFreeEnv(ctx, rules, ctx.reportFile);
  execFileSync('tmux', ['-S', socket, 'new-session', '-d', '-s', 'work', 'sleep 600'], { env });
  const pid = Number(
    execFileSync('tmux', ['-S', socket, 'display-message', '-p', '#{pid}'], { env, encoding: 'utf8' }),
  );
  return Number.isInteger(pid) && pid > 1 ? pid : null;
}

export async function driveTeamLeftover(ctx: ScenarioContext, tools: DriverTools): Promise<ScenarioOutcomeFacts> {
  const startedAt = Date.now();
  const context = observeContext(ctx);
  const doomed = await startLead(ctx, tools, 'doomed-team');
  const live = await startLead(ctx, tools, 'live-team');
  const personal = startPersonalTmux(ctx);
  const serverOf = (lead: FakeSession) => Number(lead.reports.find((r) => r.role === 'claude-root')?.server ?? 0);
  tools.step(
    `team leads up: doomed ${doomed.rootPid} (tmux server ${serverOf(doomed)}), live ${live.rootPid} (tmux server ${serverOf(live)})`,
  );
  tools.step(`a person's own tmux server ${personal ?? '?'} (${PERSONAL_TMUX_LABEL}), started by no agent`);

  const { doomedSession, liveSession } = recogniseBoth(context, doomed, live, tools, 'team leads');

  const root = identityOf(doomed.rootPid);
  tools.step(`SIGKILL the team lead ${doomed.rootPid}: its tmux server was daemonised, nothing ends it`);
  if (root !== null) process.kill(root.pid, 'SIGKILL');
  await waitGone(doomed.rootPid, 'the team lead', tools);

  const scannedBefore = scanScenario(ctx.runId, ctx.dir);
  const after = observeAgentsOnce(context);
  const scenarioPids = new Set([...scannedBefore, ...scanScenario(ctx.runId, ctx.dir)].map((entry) => entry.pid));
  const leak = after.leaks.find((candidate) => candidate.sessionId === doomedSession.id);
  if (leak === undefined) throw new Error(`the engine found no leftovers of session ${doomedSession.id}`);
  const foreign = leak.processes.filter(({ entry }) => !scenarioPids.has(entry.pid));
  if (foreign.length > 0)
    throw new Error(`the leak names processes outside the scenario: ${foreign.map((p) => p.entry.pid).join(' ')}`);
  for (const { entry, role, reasons } of leak.processes)
    tools.step(`leftover ${entry.pid} ${role}: ${reasons.slice(0, 3).join('; ')}`);
  const personalIdentity = personal === null ? null : identityOf(personal);
  const cast = castOf(leak, liveSession, personalIdentity, PERSONAL_TMUX_LABEL);
  const base = leakFactsBase({
    probes: [],
    doomed,
    doomedSession,
    liveSession,
    leak,
    unrelated: personalIdentity,
    after,
  });
  const { liveIdentities } = base;

  if (ctx.mode === 'naive')
    return naiveOutcome(ctx, tools, { startedAt, patterns: TEAM_PKILL_PATTERNS, cast, scenarioPids, base });

  tools.step(`engine clean-up (as treewarden orphans --clean): ${leak.processes.length} leftover process(es)`);
  const [cleaned] = await cleanAgentLeaks([leak], { graceMs: CLEAN_GRACE_MS });
  stepProcessResults(tools, cleaned?.processes ?? []);
  const leakedIds = leak.processes.map(({ entry }) => ({ pid: entry.pid, startTime: entry.startTime }));
  recordFacts(ctx, {
    ...base,
    cleaned: cleaned ?? null,
    afterClean: {
      leakedAlive: leakedIds.filter(isLive).map((identity) => identity.pid),
      liveAlive: liveIdentities.filter(isLive).map((identity) => identity.pid),
      unrelatedAlive: personalIdentity !== null && isLive(personalIdentity),
    },
  });
  tools.step('scenario teardown: ending the live team and the personal tmux server it started');
  await sweepScenario(ctx.runId, ctx.dir);
  const ok = cleaned !== undefined && cleaned.survivors.length === 0;
  return agentOutcomeFacts(startedAt, ok ? 'ok' : 'kill_failed', cast, undefined);
}
