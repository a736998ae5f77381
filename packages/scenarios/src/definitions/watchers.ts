/**
 * A watcher eating fds: a session's `tsx watch`-shaped watcher holds inotify watches and most of
 * its open-files limit. While the session lives the engine's `fd-hog` alert names it, and only
 * it; once the session's root is SIGKILLed the watcher is a leftover still holding all of it,
 * ended by the engine's agent clean-up, next to what `pkill -f watch`, `pkill -f tsx` and
 * `pkill -f node` would hit.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  type AgentLeak,
  directFdReader,
  judgeSessionAlerts,
  observeAgentsOnce,
  parseAlertConfig,
  readFdUsage,
  readProcTable,
} from '@treewarden/engine';
import { type FakeSession, waitForRoles } from '../agents/cast.js';
import { identityOf } from '../agents/drive.js';
import { driveToolLeftover, type PersonalTool, type ToolPlan } from '../agents/drive-tools.js';
import { factsOf, naiveChecks, treewardenChecks } from '../agents/facts.js';
import { commandLineOf } from '../agents/pkill-preview.js';
import { FIXTURE_REPORT_ENV } from '../sandbox.js';
import type { DriverTools, ScenarioCheck, ScenarioDefinition, ScenarioEvidence } from '../types.js';

export const PERSONAL_WATCHER_LABEL = 'my-own-watcher';
export const WATCHER_PKILL_PATTERNS = ['watch', 'tsx', 'node'] as const;
/** The hog: files under inotify watch, more fds held open, under a limit it mostly fills. */
const WATCHES = 300;
const OPEN_FDS = 200;
const FD_LIMIT = 256;
/** The live session's watcher: same shape, a few files, far below its limit. */
const LIVE_WATCHES = 5;
/** The alert config the user gets (no file): fd-hog above 50 % of the fd limit; no budgets in the way. */
const ALERT_CONFIG = JSON.stringify({ budgets: {} });

function reportedPid(session: FakeSession, role: string): number {
  return Number(session.reports.find((report) => report.role === role)?.pid ?? 0);
}

function describeFds(pid: number): string {
  const usage = readFdUsage(pid);
  return usage === null
    ? 'unreadable'
    : `${usage.open} open fds of its limit ${usage.openLimit ?? '?'}, ${usage.inotifyWatches} inotify watches`;
}

/** The person's own watcher: the same argv and load, in a project of their own, started by no agent. */
async function startPersonalWatcher(
  ctx: Parameters<ToolPlan['startPersonal']>[0],
  env: NodeJS.ProcessEnv,
  tools: DriverTools,
): Promise<PersonalTool> {
  const dir = join(ctx.dir, PERSONAL_WATCHER_LABEL);
  mkdirSync(dir, { recursive: true });
  const report = join(ctx.dir, `${PERSONAL_WATCHER_LABEL}-report.jsonl`);
  // Reparented to pid 1 by a shell that exits at once; the watcher execs under its lowered limit.
  const script = `(ulimit -n ${FD_LIMIT} && exec "$0" "$@") </dev/null >/dev/null 2>&1 &`;
  const child = spawn('sh', ['-c', script, ctx.node, ctx.fixture('agents/bin/tsx'), 'watch', 'server.ts'], {
    cwd: dir,
    detached: true,
    stdio: 'ignore',
    env: {
      ...env,
      [FIXTURE_REPORT_ENV]: report,
      TOOLS_WATCH_FILES: String(WATCHES),
      TOOLS_OPEN_FDS: String(OPEN_FDS),
    },
  });
  child.unref();
  const [found] = await waitForRoles(report, { watcher: 1 }, tools, "the person's own watcher");
  const identity = found === undefined ? null : identityOf(found.pid);
  if (identity === null) throw new Error("the person's own watcher did not come up in time");
  const entry = readProcTable().entries.get(identity.pid);
  return { ...identity, label: PERSONAL_WATCHER_LABEL, command: entry === undefined ? '' : commandLineOf(entry) };
}

const plan: ToolPlan = {
  sessionEnv: (_dir, kind) => ({
    TOOLS_WATCH_FILES: String(kind === 'doomed' ? WATCHES : LIVE_WATCHES),
    TOOLS_OPEN_FDS: String(kind === 'doomed' ? OPEN_FDS : 0),
    TOOLS_FD_LIMIT: String(FD_LIMIT),
  }),
  wanted: { 'claude-root': 1, watcher: 1 },
  startPersonal: startPersonalWatcher,
  whileLive: (context, sessions, doomed, tools) => {
    const watcher = reportedPid(doomed, 'watcher');
    const observation = observeAgentsOnce(context);
    const alerts = judgeSessionAlerts({
      table: observation.table,
      live: observation.live,
      remembered: observation.sessions,
      config: parseAlertConfig(ALERT_CONFIG),
      fds: directFdReader(),
      now: Date.now(),
    });
    const ours = new Set([sessions.doomed.id, sessions.live.id]);
    const mine = alerts.filter((alert) => ours.has(alert.sessionId));
    for (const alert of mine)
      tools.step(
        `alert ${alert.kind} on ${alert.sessionId}: ${alert.processes.map((e) => e.pid).join(' ')} — ${alert.why}`,
      );
    tools.step(
      `the person's own watcher ${sessions.personal.pid}: ${describeFds(sessions.personal.pid)} (no session's member)`,
    );
    const named = mine.flatMap((alert) => alert.processes.map((entry) => `${alert.kind} ${entry.pid}`));
    const exactly = named.length === 1 && named[0] === `fd-hog ${watcher}`;
    return [
      {
        name: 'while the session lived, fd-hog named its watcher and nothing else',
        ok: exactly && mine[0]?.sessionId === sessions.doomed.id,
        detail: `alerted: ${named.join(', ') || 'nothing'}; the watcher is ${watcher} (${describeFds(watcher)})`,
      },
    ];
  },
  killWithRoot: () => [],
  leakComplete: (leak, doomed) => leak.processes.some(({ entry }) => entry.pid === reportedPid(doomed, 'watcher')),
  probeLeak: (leak: AgentLeak, doomed) => {
    const watcher = reportedPid(doomed, 'watcher');
    const leftover = leak.processes.find(({ entry }) => entry.pid === watcher);
    const usage = readFdUsage(watcher);
    return [
      {
        name: 'the leftover watcher still holds its fds and inotify watches',
        ok:
          leftover?.role === 'watcher' &&
          usage !== null &&
          usage.inotifyWatches >= WATCHES &&
          usage.open >= OPEN_FDS &&
          usage.openLimit === FD_LIMIT,
        detail: `${watcher} ${leftover?.role ?? 'not judged'}: ${describeFds(watcher)}`,
      },
    ];
  },
  pkillPatterns: WATCHER_PKILL_PATTERNS,
};

function watcherChecks(evidence: ScenarioEvidence): ScenarioCheck[] {
  const facts = factsOf(evidence);
  const common = evidence.ctx.mode === 'naive' ? naiveChecks(evidence) : treewardenChecks(facts);
  return [...facts.probes, ...common];
}

export const watcherEatingFds: ScenarioDefinition = {
  name: 'watcher-eating-fds',
  title: 'An agent is killed; its file watcher keeps holding fds and inotify watches',
  explanation:
    `A Claude Code session runs \`tsx watch server.ts\`: it watches ${WATCHES} files (one inotify watch each) and holds ${OPEN_FDS} more files open, most of its limit of ${FD_LIMIT}. ` +
    'While the session lives that is an fd hog; when the agent is SIGKILLed the watcher runs on under pid 1 and keeps all of them, until the machine hits EMFILE or ENOSPC.',
  naiveFailure:
    "`pkill -f watch` and `pkill -f tsx` also end the live session's watcher and your own; `pkill -f node` also ends the live agent itself and every other program on the machine started as `node`.",
  treewardenFix:
    "The engine reads each member's open fds and inotify watches from /proc and raises `fd-hog` on the member past half its fd limit (or a quarter of fs.inotify.max_user_watches), naming only it. Once the session is gone the watcher is that session's leftover and ends with the revalidated tree kill; the live session's watcher and your own are never judged.",
  expected: { classification: 'ok', nothingSurvives: true },
  // Two sessions (root and watcher each), your own watcher, launchers and shells.
  bounds: { maxProcesses: 16, maxMs: 45_000 },
  naive: 'in-worker',
  drive: (ctx, tools) => driveToolLeftover(ctx, tools, plan),
  check: watcherChecks,
};
