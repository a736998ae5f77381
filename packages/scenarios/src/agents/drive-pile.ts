/**
 * The driver every pile-up scenario shares: a fake Claude session that stays live and holds one
 * pile (duplicate MCP server sets, idle subagents under a silent parent, a spinning background
 * job), a second live fake session and an unrelated marker-less process. The engine's alert
 * tracker (what `watch` and the app run) judges the sessions until the pile is alerted; Treewarden
 * mode then trims exactly the alerted identities (what `treewarden trim ID --yes` and the UI's Trim
 * do: judged again right before, revalidated tree kill); naive mode only computes what the
 * `pkill -f` patterns users post would hit. Nothing here ends a process the alert did not name.
 */

import {
  createAlertTracker,
  type JudgedAlert,
  type LiveSession,
  observeAgentsOnce,
  parseAlertConfig,
  pollUntil,
  readProcTable,
  selectTrim,
  type TrimmedAlert,
  trimAlerts,
} from '@treewarden/engine';
import type { SessionAlertKind } from '@treewarden/protocol';
import { scanScenario } from '../census.js';
import { sweepScenario } from '../cleanup.js';
import type { DriverTools, ScenarioContext, ScenarioOutcomeFacts } from '../types.js';
import { type FakeSession, type PileShape, startFakeClaude, startPileClaude, startUnrelated } from './cast.js';
import { identityOf, isLive, observeContext } from './drive.js';
import { agentOutcomeFacts, stepProcessResults } from './drive-outcome.js';
import type { Identity } from './facts.js';
import { type CastMember, commandLineOf, type PkillPreview, previewPkill } from './pkill-preview.js';

/** Long enough for an idle or spin window of a few seconds to be seen on a loaded 2-core machine. */
export const PILE_JUDGE_WAIT_MS = 20_000;
const JUDGE_POLL_MS = 500;
/** Samples this far apart: a few per idle window (the host's default is 5 s, for minutes-long windows). */
const SAMPLE_SPACING_MS = 500;
/** Trim grace: the pile is idle or spinning, TERM then KILL quickly. */
const TRIM_GRACE_MS = 1000;

export interface PilePlan {
  readonly kind: SessionAlertKind;
  readonly shape: PileShape;
  /** The alert thresholds the scenario judges with (agent-alerts.json's format; short windows). */
  readonly config: Record<string, unknown>;
  readonly unrelatedLabel: string;
  readonly pkillPatterns: readonly string[];
  /** From the fixture's own reports: exactly the pids the alert must name (the rest of the session is kept). */
  readonly expectedPile: (pile: FakeSession) => readonly number[];
  /**
   * Members that end by themselves once the pile is gone (a Bash-tool `sh -c 'job & wait'` whose
   * job was trimmed): neither the pile nor an innocent that must live on.
   */
  readonly endsWithPile?: (session: LiveSession, pile: ReadonlySet<number>) => readonly number[];
}

export interface PileFacts {
  readonly pile: FakeSession;
  readonly expected: readonly Identity[];
  /** The last alert of the plan's kind for the piling session (null: never raised). */
  readonly alert: JudgedAlert | null;
  /** Every pid any alert of the piling session named at any tick (innocents must never be among them). */
  readonly everAlerted: readonly number[];
  /** Innocents: the piling agent and the members a trim keeps, the other session, the unrelated process. */
  readonly innocents: readonly CastMember[];
  readonly trimmed: readonly TrimmedAlert[] | null;
  readonly afterTrim?: {
    readonly pileAlive: readonly number[];
    readonly innocentsGone: readonly CastMember[];
    /** The alert of the plan's kind is no longer raised on the next judgement. */
    readonly alertCleared: boolean;
  };
}

const recorded = new WeakMap<ScenarioContext, PileFacts>();

export function pileFactsOf(ctx: ScenarioContext): PileFacts {
  const facts = recorded.get(ctx);
  if (facts === undefined) throw new Error('the pile driver recorded no facts');
  return facts;
}

function member(
  identity: Identity & { args?: readonly string[]; command?: string },
  role: CastMember['role'],
): CastMember {
  return {
    pid: identity.pid,
    startTime: identity.startTime,
    role,
    command: identity.args === undefined ? '' : commandLineOf({ args: identity.args, command: identity.command ?? '' }),
  };
}

function sessionCast(session: LiveSession, rootRole: CastMember['role'], memberRole: CastMember['role']): CastMember[] {
  return [member(session.root, rootRole), ...session.members.map(({ entry }) => member(entry, memberRole))];
}

function expectedIdentities(pile: FakeSession, plan: PilePlan): Identity[] {
  return plan.expectedPile(pile).map((pid) => {
    const identity = identityOf(pid);
    if (identity === null) throw new Error(`the pile's process ${pid} is gone before it was judged`);
    return identity;
  });
}

/** Ticks the tracker until the pile's alert names exactly the expected pids (or the bound passes). */
async function judgeUntilAlerted(
  context: ReturnType<typeof observeContext>,
  plan: PilePlan,
  sessionId: string,
  expected: ReadonlySet<number>,
  tools: DriverTools,
) {
  const tracker = createAlertTracker({
    config: parseAlertConfig(JSON.stringify(plan.config)),
    sampleSpacingMs: SAMPLE_SPACING_MS,
  });
  const everAlerted = new Set<number>();
  let alert: JudgedAlert | null = null;
  const judge = () => {
    const tick = tracker.tick(observeAgentsOnce(context));
    const mine = tick.alerts.filter((candidate) => candidate.sessionId === sessionId);
    for (const candidate of mine) for (const entry of candidate.processes) everAlerted.add(entry.pid);
    alert = mine.find((candidate) => candidate.kind === plan.kind) ?? null;
    return tick.alerts;
  };
  const exact = () => {
    judge();
    const pids = new Set((alert as JudgedAlert | null)?.processes.map((entry) => entry.pid) ?? []);
    return pids.size === expected.size && [...expected].every((pid) => pids.has(pid));
  };
  await pollUntil(exact, { deadlineMs: PILE_JUDGE_WAIT_MS, intervalMs: JUDGE_POLL_MS, signal: tools.signal });
  return { judge, everAlerted, alert: (): JudgedAlert | null => alert };
}

export async function drivePile(
  ctx: ScenarioContext,
  tools: DriverTools,
  plan: PilePlan,
): Promise<ScenarioOutcomeFacts> {
  const startedAt = Date.now();
  const context = observeContext(ctx);
  const pile = await startPileClaude(ctx, tools, context.rules, 'piling-project', plan.shape);
  const live = await startFakeClaude(ctx, tools, context.rules, 'live-project', 1);
  const unrelated = await startUnrelated(ctx, tools, context.rules, plan.unrelatedLabel);
  tools.step(`fake Claude sessions up: piling root ${pile.rootPid} (stays live), other live root ${live.rootPid}`);
  tools.step(`unrelated marker-less process ${unrelated.pid} (${plan.unrelatedLabel}), reparented away`);

  const seen = observeAgentsOnce(context);
  const pileSession = seen.live.find((session) => session.root.pid === pile.rootPid);
  const liveSession = seen.live.find((session) => session.root.pid === live.rootPid);
  if (pileSession === undefined || liveSession === undefined)
    throw new Error('the engine did not recognise both fake Claude sessions');
  const expected = expectedIdentities(pile, plan);
  const expectedPids = new Set(expected.map((identity) => identity.pid));
  tools.step(`the pile (from the fixture's reports): ${[...expectedPids].join(' ')}`);

  const followers = new Set(plan.endsWithPile?.(pileSession, expectedPids) ?? []);
  const innocents = [
    ...sessionCast(pileSession, 'pile-agent', 'pile-kept').filter(
      (m) => !expectedPids.has(m.pid) && !followers.has(m.pid),
    ),
    ...sessionCast(liveSession, 'live-session-root', 'live-session-member'),
    ...(identityOf(unrelated.pid) === null
      ? []
      : [
          {
            ...(identityOf(unrelated.pid) as Identity),
            role: 'unrelated' as const,
            command: `run-forever.mjs unrelated --name ${plan.unrelatedLabel}`,
          },
        ]),
  ];
  const cast: CastMember[] = [
    ...expected.map((identity) => ({ ...identity, role: 'pile' as const, command: commandOfPid(identity.pid) })),
    ...innocents,
  ];

  if (ctx.mode === 'naive') {
    const scenarioPids = new Set(scanScenario(ctx.runId, ctx.dir).map((entry) => entry.pid));
    const table = readProcTable();
    const pkill = plan.pkillPatterns.map((pattern) => previewPkill(pattern, table, cast, scenarioPids));
    for (const preview of pkill) tools.step(`naive (computed, never run): ${describePilePreview(preview)}`);
    recorded.set(ctx, { pile, expected, alert: null, everAlerted: [], innocents, trimmed: null });
    return agentOutcomeFacts(startedAt, null, cast, pkill);
  }

  const judged = await judgeUntilAlerted(context, plan, pileSession.id, expectedPids, tools);
  const alert = judged.alert();
  tools.step(
    alert === null
      ? `no ${plan.kind} alert within ${PILE_JUDGE_WAIT_MS} ms`
      : `alert ${alert.kind}: ${alert.processes.map((entry) => entry.pid).join(' ')} — ${alert.why}`,
  );
  let trimmed: TrimmedAlert[] = [];
  if (alert !== null) {
    // As `trim --yes` and the UI do: judge again right before, keep only what the user confirmed.
    const selection = selectTrim(judged.judge(), { sessionId: pileSession.id, kind: plan.kind, targets: expected });
    tools.step(
      `trim (as treewarden trim ${pileSession.id} --kind ${plan.kind} --yes): ${selection.alerts.length} alert(s)`,
    );
    trimmed = await trimAlerts(selection.alerts, { graceMs: TRIM_GRACE_MS });
    stepProcessResults(
      tools,
      trimmed.flatMap((item) => item.processes),
    );
  }
  const stillAlerted = await pollUntil(
    () => {
      judged.judge();
      return judged.alert() === null;
    },
    { deadlineMs: PILE_JUDGE_WAIT_MS, intervalMs: JUDGE_POLL_MS, signal: tools.signal },
  );
  const afterTrim = {
    pileAlive: expected.filter(isLive).map((identity) => identity.pid),
    innocentsGone: innocents.filter((innocent) => !isLive(innocent)),
    alertCleared: stillAlerted !== null,
  };
  recorded.set(ctx, { pile, expected, alert, everAlerted: [...judged.everAlerted], innocents, trimmed, afterTrim });
  tools.step('scenario teardown: ending the piling session, the other session and the unrelated process it started');
  await sweepScenario(ctx.runId, ctx.dir);
  const ok = trimmed.length > 0 && trimmed.every((item) => item.survivors.length === 0);
  return agentOutcomeFacts(startedAt, ok ? 'ok' : 'kill_failed', cast, undefined);
}

function commandOfPid(pid: number): string {
  const entry = readProcTable().entries.get(pid);
  return entry === undefined ? '' : commandLineOf(entry);
}

export function describePilePreview(preview: PkillPreview): string {
  const innocents =
    preview.innocents.length === 0
      ? 'no innocent'
      : `${preview.innocents.length} INNOCENT: ${preview.innocents.map((m) => `${m.pid} (${m.role})`).join(', ')}`;
  const missed = preview.leakedMissed.length === 0 ? '' : `; MISSES pile ${preview.leakedMissed.join(' ')}`;
  return `${preview.command} would hit ${innocents}; ends pile ${preview.leakedHit.join(' ') || 'none'}${missed}; plus ${preview.outsideHits} process(es) outside the scenario`;
}
