/**
 * Pile-ups inside a live agent session: none of these is an orphan, so no leak finder
 * sees them. Each starts a fake Claude session that stays live and holds one pile, a second live
 * fake session and an unrelated marker-less process; the engine's alert judgement must name exactly
 * the pile, the trim must end exactly it, and every innocent (the agent itself, the members it
 * keeps, the other session, the unrelated process) lives on. `--naive` computes, never runs, what
 * the `pkill -f` patterns users post would hit.
 */
import { readProcEntry } from '@treewarden/engine';
import type { FakeSession } from '../agents/cast.js';
import { identityOf } from '../agents/drive.js';
import { drivePile, type PileFacts, type PilePlan, pileFactsOf } from '../agents/drive-pile.js';
import { naiveChecks } from '../agents/facts.js';
import type { ScenarioCheck, ScenarioDefinition, ScenarioEvidence } from '../types.js';

/** Two fake sessions (up to 9 and 7 processes), the unrelated process, launchers and shells. */
const PILE_BOUNDS = { maxProcesses: 30, maxMs: 60_000 } as const;
const MCP_SETS = 3;
const SUBAGENTS = 4;
/** Subagents a session may keep stale before the rest are an alert (the newest are kept). */
const ALLOWED_STALE = 1;

function check(name: string, ok: boolean, detail: string): ScenarioCheck {
  return { name, ok, detail };
}

function pids(session: FakeSession, role: string): number[] {
  return session.reports.filter((report) => report.role === role).map((report) => report.pid);
}

/** Oldest first, by the kernel's start time (the fixture starts them apart by more than a tick). */
function byStart(list: readonly number[]): number[] {
  const start = (pid: number) => BigInt(identityOf(pid)?.startTime ?? '0');
  return [...list].sort((a, b) => (start(a) < start(b) ? -1 : start(a) > start(b) ? 1 : 0));
}

function sameSet(a: readonly number[], b: readonly number[]): boolean {
  const set = new Set(a);
  return a.length === b.length && b.every((pid) => set.has(pid));
}

/** What every pile scenario checks under Treewarden. */
function treewardenPileChecks(facts: PileFacts): ScenarioCheck[] {
  const expected = facts.expected.map((identity) => identity.pid);
  const alerted = facts.alert?.processes.map((entry) => entry.pid) ?? [];
  const innocentPids = new Set(facts.innocents.map((innocent) => innocent.pid));
  const wronglyAlerted = facts.everAlerted.filter((pid) => innocentPids.has(pid));
  const trimmed = facts.trimmed?.flatMap((item) => item.processes) ?? [];
  const after = facts.afterTrim;
  const gone = (role: string) => after?.innocentsGone.filter((innocent) => innocent.role.startsWith(role)) ?? [];
  const describeGone = (role: string) =>
    gone(role)
      .map((innocent) => `${innocent.pid} ${innocent.role}`)
      .join(', ');
  return [
    check(
      'the alert names exactly the pile',
      facts.alert !== null && sameSet(alerted, expected),
      `alerted ${alerted.join(' ') || 'nothing'}; the pile is ${expected.join(' ')}${facts.alert ? ` — ${facts.alert.why}` : ''}`,
    ),
    check(
      'no innocent was ever alerted',
      wronglyAlerted.length === 0,
      wronglyAlerted.length === 0 ? `${innocentPids.size} innocents never named` : `named ${wronglyAlerted.join(' ')}`,
    ),
    check(
      'the trim ended exactly the pile',
      after !== undefined &&
        sameSet(
          trimmed.map((process) => process.pid),
          expected,
        ) &&
        trimmed.every((process) => process.result === 'killed' || process.result === 'already_gone') &&
        after.pileAlive.length === 0,
      `${trimmed.map((process) => `${process.pid} ${process.result}`).join(', ') || 'nothing trimmed'}; still alive: ${after?.pileAlive.join(' ') || 'none'}`,
    ),
    check(
      'the piling agent and the members it keeps live on',
      after !== undefined && gone('pile-').length === 0,
      gone('pile-').length === 0 ? 'all alive after the trim' : `GONE: ${describeGone('pile-')}`,
    ),
    check(
      'the other live session was left alone',
      after !== undefined && gone('live-session').length === 0,
      gone('live-session').length === 0
        ? 'root and members alive after the trim'
        : `GONE: ${describeGone('live-session')}`,
    ),
    check(
      'the unrelated marker-less process was left alone',
      after !== undefined && gone('unrelated').length === 0,
      gone('unrelated').length === 0 ? 'alive after the trim' : 'GONE after the trim',
    ),
    check(
      'the alert cleared once the pile was gone',
      after?.alertCleared === true,
      after?.alertCleared === true ? 'not raised on the next judgement' : 'still raised',
    ),
  ];
}

function pileChecks(evidence: ScenarioEvidence): ScenarioCheck[] {
  const facts = pileFactsOf(evidence.ctx);
  return evidence.ctx.mode === 'naive' ? naiveChecks(evidence) : treewardenPileChecks(facts);
}

function pileScenario(
  base: Omit<ScenarioDefinition, 'expected' | 'bounds' | 'naive' | 'drive' | 'check'>,
  plan: PilePlan,
): ScenarioDefinition {
  return {
    ...base,
    expected: { classification: 'ok', nothingSurvives: true },
    bounds: PILE_BOUNDS,
    naive: 'in-worker',
    drive: (ctx, tools) => drivePile(ctx, tools, plan),
    check: pileChecks,
  };
}

/** Only the kind under test: the other rules are judged by the engine's own tests. */
const ONLY = {
  duplicateServers: { enabled: false },
  staleSubagents: { enabled: false },
  runawayJob: { enabled: false },
};

export const pileDuplicateMcp = pileScenario(
  {
    name: 'pile-duplicate-mcp',
    title: 'Duplicate MCP server sets pile up under a live agent',
    explanation:
      `A live Claude Code session starts the same stdio MCP server (\`npx … server\`) ${MCP_SETS} times and never ends the old sets. ` +
      'Nothing is orphaned: every set still has its live parent, so no leak finder sees them, and they hold memory for hours.',
    naiveFailure:
      '`pkill -f fake-mcp-server` or `pkill -f npx` ends the old sets, but also the newest set the agent is using, the same server of a second live session and an unrelated tool named like it.',
    treewardenFix:
      'The alert names the older sets by identity (same argv, same session) and keeps the newest; trim ends exactly those with the revalidated tree kill; the agent, its newest set and the other session live on.',
  },
  {
    kind: 'duplicate-servers',
    shape: { mcpSets: MCP_SETS },
    config: { ...ONLY, duplicateServers: { enabled: true } },
    unrelatedLabel: 'fake-mcp-server-dashboard',
    pkillPatterns: ['fake-mcp-server', 'npx'],
    expectedPile: (pile) => {
      const wrappers = byStart(pids(pile, 'npx-wrapper')).slice(0, -1);
      const servers = pile.reports.filter(
        (report) => report.role === 'mcp-server' && wrappers.includes(Number(report.ppid)),
      );
      return [...wrappers, ...servers.map((report) => report.pid)];
    },
  },
);

export const pileStaleSubagents = pileScenario(
  {
    name: 'pile-stale-subagents',
    title: 'Subagents pile up under a live parent that never reads them',
    explanation:
      `A live Claude Code session starts ${SUBAGENTS} subagents (\`claude -p … --output-format stream-json --resume …\`) and goes silent: ` +
      'it never reads them nor closes their stdin. They idle on, each holding its memory, under a parent that is still alive.',
    naiveFailure:
      '`pkill -f stream-json` or `pkill -f claude` ends the stale subagents, but also the newest one, the agent itself, the subagent and root of a second live session and anything else named claude.',
    treewardenFix: `Beyond ${ALLOWED_STALE} allowed, subagents idle (no CPU) for the configured time are an alert, the newest kept; trim ends exactly the older ones, and the agent and the other session live on.`,
  },
  {
    kind: 'stale-subagents',
    shape: { subagents: SUBAGENTS },
    config: { ...ONLY, staleSubagents: { enabled: true, allowed: ALLOWED_STALE, idleSeconds: 2 } },
    unrelatedLabel: 'claude-usage-dashboard',
    pkillPatterns: ['stream-json', 'claude'],
    expectedPile: (pile) => byStart(pids(pile, 'subagent')).slice(0, -ALLOWED_STALE),
  },
);

export const pileRunawayJob = pileScenario(
  {
    name: 'pile-runaway-job',
    title: 'A Bash-tool background job spins a core under a live agent',
    explanation:
      'A live Claude Code session ran `sh -c "… & wait"` from its Bash tool; the job spins at 100 % of a core and nobody stops it (reported: 8–34 hours). ' +
      'Its lifetime here is capped by the fixture.',
    naiveFailure:
      '`pkill -f cpu-spin` also ends an unrelated benchmark named like it; `pkill -f "sh -c"` ends the shells of a second live session (its MCP server and dev server go with them) and misses the spinner itself.',
    treewardenFix:
      'The member that spun above the CPU threshold for the configured time is the alert; trim ends exactly it; its waiting shell then ends by itself, and the agent and the other session live on.',
  },
  {
    kind: 'runaway-job',
    shape: { spin: true },
    config: { ...ONLY, runawayJob: { enabled: true, cpuPercent: 15, cpuSeconds: 3 } },
    unrelatedLabel: 'cpu-spin-benchmark',
    pkillPatterns: ['cpu-spin', 'sh -c'],
    expectedPile: (pile) => pids(pile, 'spinner'),
    endsWithPile: (session, pile) =>
      session.members
        .filter(
          ({ entry }) => entry.args[0] === 'sh' && [...pile].some((pid) => readProcEntry(pid)?.ppid === entry.pid),
        )
        .map(({ entry }) => entry.pid),
  },
);
