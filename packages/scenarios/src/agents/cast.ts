/**
 * The processes an agent-leak scenario starts: fake Claude Code sessions installed the way npm
 * installs the real one (a stub at `<dir>/<name>/node_modules/@anthropic-ai/claude-code/cli.js`
 * importing the engine's fake-claude fixture, so the root's argv has the real shape), and one
 * unrelated, marker-less process reparented to pid 1. Everything carries the scenario's cookie
 * (for the census and the final sweep) and none carries an agent marker from our own environment.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type AgentRules, pollUntil, RUN_ID_ENV } from '@treewarden/engine';
import { FIXTURE_REPORT_ENV } from '../sandbox.js';
import type { DriverTools, FixtureReport, ScenarioContext } from '../types.js';

const CLAUDE_STUB = 'node_modules/@anthropic-ai/claude-code/cli.js';
/** How many subagents the fake Claude starts (read by fake-claude.mjs). */
const SUBAGENTS_ENV = 'FAKE_CLAUDE_SUBAGENTS';
/** Node start-up of a whole fake session (7+ processes) on a loaded 2-core machine. */
export const CAST_READY_WAIT_MS = 20_000;
const REPORT_POLL_MS = 100;

export interface FakeSession {
  readonly name: string;
  readonly dir: string;
  readonly rootPid: number;
  readonly reports: readonly FixtureReport[];
}

function readReportFile(path: string): FixtureReport[] {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  const reports: FixtureReport[] = [];
  for (const line of text.split('\n')) {
    try {
      const value = JSON.parse(line) as FixtureReport;
      if (typeof value.role === 'string' && typeof value.pid === 'number') reports.push(value);
    } catch {
      // Empty, or being written: complete on the next read.
    }
  }
  return reports;
}

/** Our environment without any agent marker (a test run inside a real agent session carries them). */
export function markerFreeEnv(ctx: ScenarioContext, rules: AgentRules, report: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...ctx.env, [RUN_ID_ENV]: ctx.runId, [FIXTURE_REPORT_ENV]: report };
  for (const name of rules.markersByName.keys()) delete env[name];
  return env;
}

export function installStub(
  ctx: ScenarioContext,
  name: string,
  fixture = 'agents/fake-claude.mjs',
): { dir: string; stub: string } {
  const dir = join(ctx.dir, name);
  const stub = join(dir, CLAUDE_STUB);
  mkdirSync(join(stub, '..'), { recursive: true });
  // CommonJS (no package.json there): a dynamic import loads the ES module fixture.
  writeFileSync(stub, `import(${JSON.stringify(pathToFileURL(ctx.fixture(fixture)).href)});\n`);
  return { dir, stub };
}

/** Reports expected from a fake Claude: root, npx wrapper, MCP server, dev server, subagents. */
function expectedReports(subagents: number): Record<string, number> {
  return { 'claude-root': 1, 'npx-wrapper': 1, 'mcp-server': 1, 'dev-server': 1, subagent: subagents };
}

export async function waitForRoles(path: string, wanted: Record<string, number>, tools: DriverTools, what: string) {
  const reports = await pollUntil(
    () => {
      const found = readReportFile(path);
      const complete = Object.entries(wanted).every(
        ([role, count]) => found.filter((report) => report.role === role).length >= count,
      );
      return complete ? found : null;
    },
    { deadlineMs: CAST_READY_WAIT_MS, intervalMs: REPORT_POLL_MS, signal: tools.signal },
  );
  if (reports === null) throw new Error(`${what} did not come up within ${CAST_READY_WAIT_MS} ms`);
  return reports;
}

/**
 * Starts `stub` as `node …/cli.js` in its own session through a short-lived Node launcher that
 * exits at once, as a terminal's shell hands a job over: the root's parent is then pid 1 (or a
 * subreaper), not this process, so a scenario run from inside a real agent session does not make
 * the fake session part of that real one.
 *
 * The agent rules know a Claude root only by that argv (`node`, then the cli.js path), so the
 * launcher starts the binary that really runs it (/proc/self/exe) under the name `node`. Starting
 * `process.execPath` instead would give the root whatever argv the path we were started by
 * produces: a wrapper script in front of the binary (a version manager's shim, the stand-in
 * Electron of the tests) execs the binary with arguments of its own before cli.js, and the
 * sessions would never be recognised. Under Electron the binary is the app's, which runs the
 * stub as Node because the launcher's environment carries ELECTRON_RUN_AS_NODE=1.
 */
export function launchOrphanedRoot(
  ctx: ScenarioContext,
  stub: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const script = [
    "const { spawn } = require('node:child_process');",
    "const { readlinkSync } = require('node:fs');",
    'let binary = process.execPath;',
    "try { binary = readlinkSync('/proc/self/exe'); } catch { /* no /proc: the path we were started by */ }",
    "const child = spawn(binary, [process.argv[1]], { argv0: 'node', detached: true, stdio: 'ignore' });",
    'child.unref();',
    'process.stdout.write(String(child.pid));',
  ].join('\n');
  const launcher = spawn(ctx.node, ['-e', script, stub], { cwd, env, stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  launcher.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    launcher.once('error', reject);
    launcher.once('close', () => {
      const pid = Number(out);
      if (Number.isInteger(pid) && pid > 1) resolve(pid);
      else reject(new Error(`the launcher of ${stub} did not start it`));
    });
  });
}

/** Starts a fake Claude session in its own process group and session, as a terminal starts a job. */
export async function startFakeClaude(
  ctx: ScenarioContext,
  tools: DriverTools,
  rules: AgentRules,
  name: string,
  subagents: number,
): Promise<FakeSession> {
  const { dir, stub } = installStub(ctx, name);
  const reportFile = join(ctx.dir, `${name}-report.jsonl`);
  const env = { ...markerFreeEnv(ctx, rules, reportFile), [SUBAGENTS_ENV]: String(subagents) };
  const rootPid = await launchOrphanedRoot(ctx, stub, dir, env);
  const reports = await waitForRoles(reportFile, expectedReports(subagents), tools, `the fake Claude "${name}"`);
  return { name, dir, rootPid, reports };
}

/** The pile-ups a live fake Claude holds (read by the engine's fake-claude-piles.mjs). */
export interface PileShape {
  /** Sets of the same MCP server command line (npx wrapper → server), oldest first. */
  readonly mcpSets?: number;
  /** Subagents under the live root, which never reads them (idle). */
  readonly subagents?: number;
  /** A Bash-tool background job spinning a core (capped by the fixture lifetime). */
  readonly spin?: boolean;
}

function pileEnv(shape: PileShape): Record<string, string> {
  return {
    PILE_MCP_SETS: String(shape.mcpSets ?? 0),
    PILE_SUBAGENTS: String(shape.subagents ?? 0),
    PILE_SPIN: shape.spin === true ? '1' : '0',
  };
}

function pileReports(shape: PileShape): Record<string, number> {
  const sets = shape.mcpSets ?? 0;
  return {
    'claude-root': 1,
    'npx-wrapper': sets,
    'mcp-server': sets,
    subagent: shape.subagents ?? 0,
    spinner: shape.spin === true ? 1 : 0,
  };
}

/** Starts a fake Claude session that stays live and holds the pile-ups of `shape`, as a terminal starts a job. */
export async function startPileClaude(
  ctx: ScenarioContext,
  tools: DriverTools,
  rules: AgentRules,
  name: string,
  shape: PileShape,
): Promise<FakeSession> {
  const { dir, stub } = installStub(ctx, name, 'agents/fake-claude-piles.mjs');
  const reportFile = join(ctx.dir, `${name}-report.jsonl`);
  const env = { ...markerFreeEnv(ctx, rules, reportFile), ...pileEnv(shape) };
  const rootPid = await launchOrphanedRoot(ctx, stub, dir, env);
  const reports = await waitForRoles(reportFile, pileReports(shape), tools, `the piling fake Claude "${name}"`);
  return { name, dir, rootPid, reports };
}

/**
 * A marker-less process with `label` in its argv (what a user's `pkill -f` pattern catches), in
 * its own session and reparented to pid 1 by a shell that exits at once: nobody's agent member.
 */
export async function startUnrelated(
  ctx: ScenarioContext,
  tools: DriverTools,
  rules: AgentRules,
  label: string,
): Promise<FixtureReport> {
  const script = '"$0" "$@" </dev/null >/dev/null 2>&1 &';
  const child = spawn('sh', ['-c', script, ctx.node, ctx.fixture('run-forever.mjs'), 'unrelated', '--name', label], {
    cwd: ctx.dir,
    detached: true,
    stdio: 'ignore',
    env: markerFreeEnv(ctx, rules, ctx.reportFile),
  });
  child.unref();
  const [found] = (await tools.waitForReports('unrelated', 1, CAST_READY_WAIT_MS)) ?? [];
  if (found === undefined) throw new Error('the unrelated process did not come up in time');
  return found;
}

export function pidsOf(session: FakeSession, role: string): number[] {
  return session.reports.filter((report) => report.role === role).map((report) => report.pid);
}
