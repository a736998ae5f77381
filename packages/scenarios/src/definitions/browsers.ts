/**
 * A browser left by its MCP server: a session's browser MCP server started a real headless
 * Chromium (Debian's /usr/bin/chromium); the agent and its MCP server are SIGKILLed and Chromium's
 * whole tree (zygotes, renderers, GPU and utility processes) runs on. Ended by the engine's agent
 * clean-up as the session's `browser` leftover, next to what `pkill -f chromium`, `pkill -f chrome`
 * and `pkill -f playwright` would hit. Needs Chromium.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AgentLeak, browserProfileOf, type ProcessTable, pollUntil, readProcTable } from '@treewarden/engine';
import type { FakeSession } from '../agents/cast.js';
import { identityOf, isLive } from '../agents/drive.js';
import { driveToolLeftover, type PersonalTool, type ToolPlan } from '../agents/drive-tools.js';
import { factsOf, naiveChecks, treewardenChecks } from '../agents/facts.js';
import { commandLineOf } from '../agents/pkill-preview.js';
import type { DriverTools, ScenarioCheck, ScenarioDefinition, ScenarioEvidence } from '../types.js';

export const CHROMIUM = '/usr/bin/chromium';
/** Playwright MCP's profile shape (`playwright_chromiumdev_profile-*`), in the session's directory. */
const PROFILE_PREFIX = 'playwright_chromiumdev_profile-';
export const PERSONAL_BROWSER_LABEL = 'my-own-browser';
export const BROWSER_PKILL_PATTERNS = ['chromium', 'chrome', 'playwright'] as const;
/** Chromium's zygotes and first renderer come up seconds after its main process on a loaded machine. */
const BROWSER_TREE_WAIT_MS = 30_000;
const POLL_MS = 250;

function chromiumMissing(): string | null {
  return existsSync(CHROMIUM) ? null : `Chromium is not installed at ${CHROMIUM} (apt-get install chromium)`;
}

function descendantsOf(table: ProcessTable, pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of table.entries.values()) {
    const list = children.get(entry.ppid) ?? [];
    list.push(entry.pid);
    children.set(entry.ppid, list);
  }
  const found: number[] = [];
  const queue = [...(children.get(pid) ?? [])];
  while (queue.length > 0) {
    const next = queue.shift() as number;
    found.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return found;
}

/**
 * The command line as it reads now. A zygote forks its renderers without an exec and each then
 * rewrites its own cmdline: a table that read the child in between keeps the zygote's argv for
 * that identity (same pid, start, comm and binary), so the type is read here, fresh.
 */
function freshCommandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return ''; // gone
  }
}

/**
 * Waits until Chromium's tree is up: a zygote and a renderer under the main process. Killed any
 * earlier, the leftover was one process (the launcher script still exec'ing, or no zygote yet).
 */
async function waitForTree(main: number, what: string, tools: DriverTools): Promise<number[]> {
  const tree = await pollUntil(
    () => {
      const table = readProcTable();
      const below = descendantsOf(table, main);
      const types = below.map(freshCommandLine);
      const up =
        types.some((line) => line.includes('--type=zygote')) && types.some((l) => l.includes('--type=renderer'));
      return up ? below : null;
    },
    { deadlineMs: BROWSER_TREE_WAIT_MS, intervalMs: POLL_MS, signal: tools.signal },
  );
  if (tree === null) throw new Error(`${what} (${main}) did not bring its zygotes and renderer up in time`);
  return tree;
}

function reportedPid(session: FakeSession, role: string): number {
  return Number(session.reports.find((report) => report.role === role)?.pid ?? 0);
}

async function startPersonalBrowser(
  ctx: Parameters<ToolPlan['startPersonal']>[0],
  env: NodeJS.ProcessEnv,
  tools: DriverTools,
): Promise<PersonalTool> {
  const dir = join(ctx.dir, PERSONAL_BROWSER_LABEL);
  mkdirSync(dir, { recursive: true });
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    `--user-data-dir=${join(dir, 'profile')}`,
    'about:blank',
  ];
  // A home of its own: its crashpad handlers (detached, not below it) name it in `--database=`.
  const home = join(dir, 'home');
  const own = { ...env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache') };
  // Reparented to pid 1 by a shell that exits at once, as a terminal's job outlives its shell.
  const out = execFileSync('sh', ['-c', '"$0" "$@" </dev/null >/dev/null 2>&1 & echo $!', CHROMIUM, ...args], {
    cwd: dir,
    env: own,
    encoding: 'utf8',
  });
  const pid = Number(out.trim());
  if (!Number.isInteger(pid) || pid <= 1) throw new Error('the personal browser did not start');
  const tree = await waitForTree(pid, "the person's own browser", tools);
  const identity = identityOf(pid);
  if (identity === null) throw new Error('the personal browser ended by itself');
  const table = readProcTable();
  const crashpad = [...table.entries.values()]
    .filter((entry) => entry.command.startsWith('chrome_crashpad') && commandLineOf(entry).includes(`${home}/`))
    .map((entry) => entry.pid);
  const below = [...tree, ...crashpad].flatMap((found) => {
    const entry = table.entries.get(found);
    return entry === undefined ? [] : [{ pid: found, startTime: entry.startTime, command: commandLineOf(entry) }];
  });
  const entry = table.entries.get(pid);
  return {
    ...identity,
    label: PERSONAL_BROWSER_LABEL,
    command: entry === undefined ? CHROMIUM : commandLineOf(entry),
    below,
  };
}

function browserLeftover(leak: AgentLeak, doomed: FakeSession) {
  return leak.processes.find(({ entry }) => entry.pid === reportedPid(doomed, 'browser'));
}

function probeBrowserLeak(leak: AgentLeak, doomed: FakeSession): ScenarioCheck[] {
  const main = reportedPid(doomed, 'browser');
  const leftover = browserLeftover(leak, doomed);
  const profile = leftover === undefined ? null : browserProfileOf(leftover.entry.args);
  const wanted = join(doomed.dir, `${PROFILE_PREFIX}doomed`);
  const tree = descendantsOf(readProcTable(), main);
  const inLeak = new Map(leak.processes.map(({ entry, role }) => [entry.pid, role]));
  const missing = tree.filter((pid) => !inLeak.has(pid));
  const notBrowser = [main, ...tree].filter((pid) => inLeak.has(pid) && inLeak.get(pid) !== 'browser');
  return [
    {
      name: "the dead session's browser was judged a leftover, role browser, with its profile",
      ok: leftover?.role === 'browser' && profile !== null && profile === wanted,
      detail: `${main}: ${leftover?.role ?? 'not judged'}, profile ${profile ?? 'none'}`,
    },
    {
      name: "Chromium's whole tree went with it",
      ok: leftover !== undefined && tree.length >= 2 && missing.length === 0 && notBrowser.length === 0,
      detail: `${tree.length} processes under ${main}; not in the leak: ${missing.join(' ') || 'none'}; not role browser: ${notBrowser.join(' ') || 'none'}`,
    },
  ];
}

function probePersonalTree(personal: PersonalTool): ScenarioCheck[] {
  const tree = personal.below ?? [];
  const gone = tree.filter((identity) => !isLive(identity)).map((identity) => identity.pid);
  return [
    {
      name: "your own browser's whole tree was left running",
      ok: tree.length > 0 && gone.length === 0 && isLive(personal),
      detail: `${personal.pid} and ${tree.length} below it; gone: ${gone.join(' ') || 'none'}`,
    },
  ];
}

const plan: ToolPlan = {
  sessionEnv: (dir, kind) => ({ TOOLS_BROWSER_PROFILE: join(dir, `${PROFILE_PREFIX}${kind}`) }),
  wanted: { 'claude-root': 1, 'browser-mcp': 1, browser: 1 },
  ready: async (session, tools) => {
    await waitForTree(reportedPid(session, 'browser'), `the browser of "${session.name}"`, tools);
  },
  startPersonal: startPersonalBrowser,
  killWithRoot: (doomed) => [reportedPid(doomed, 'browser-mcp')],
  leakComplete: (leak, doomed) => browserLeftover(leak, doomed) !== undefined,
  probeLeak: probeBrowserLeak,
  probeCleaned: probePersonalTree,
  pkillPatterns: BROWSER_PKILL_PATTERNS,
};

function browserChecks(evidence: ScenarioEvidence): ScenarioCheck[] {
  const facts = factsOf(evidence);
  const common = evidence.ctx.mode === 'naive' ? naiveChecks(evidence) : treewardenChecks(facts);
  return [...facts.probes, ...common];
}

export const browserLeftByMcp: ScenarioDefinition = {
  name: 'browser-left-by-mcp',
  title: 'An agent and its browser MCP server are killed; their headless Chromium keeps running',
  explanation:
    "A Claude Code session's browser MCP server (as Playwright MCP) starts a headless Chromium with its own profile (`--user-data-dir=…/playwright_chromiumdev_profile-…`): a main process, zygotes, renderers, GPU and utility processes. " +
    'The agent and its MCP server are SIGKILLed; nothing ends Chromium, and its whole tree runs on under pid 1.',
  naiveFailure:
    "`pkill -f chromium` also ends the live session's browser and your own. `pkill -f chrome` matches only each browser's crashpad handlers and one renderer: the dead browser's main process and most of its tree run on, while the live session's browser and yours lose those. `pkill -f playwright` also ends the live session's browser and misses the dead one's crashpad handlers.",
  treewardenFix:
    "The engine keeps the browser as one member of the session (role browser, its profile shown, its tree folded in); once the session is gone it is that session's leftover, tree and all, and ends with the revalidated tree kill. The live session's browser and your own are never judged.",
  expected: { classification: 'ok', nothingSurvives: true },
  // Three Chromium trees of about 9 processes each, two sessions with their MCP servers, launchers.
  bounds: { maxProcesses: 48, maxMs: 60_000 },
  naive: 'in-worker',
  unavailableReason: chromiumMissing,
  drive: (ctx, tools) => driveToolLeftover(ctx, tools, plan),
  check: browserChecks,
};
