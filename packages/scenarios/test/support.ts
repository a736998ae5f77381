/**
 * Shared by the scenario tests: an independent survivor scan (not the scenarios' own census),
 * the assertions every scenario run must pass, and the per-file scenario groups (the catalog
 * test checks that every scenario in the catalog belongs to one, so none goes untested).
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, expect } from 'vitest';
import { collectOutput } from '../../../test-support/cli-helpers.js';
import {
  findScenario,
  type ScenarioResult,
  type ScenarioRunOptions,
  startScenario,
  sweepScenario,
} from '../src/index.js';

export const ESCAPE_SCENARIOS = [
  'grandchild-heartbeat',
  'setsid-escape',
  'double-fork-daemon',
  'nohup-disown',
] as const;
export const SIGNAL_SCENARIOS = [
  'ignore-sigterm',
  'trap-term-int',
  'zombie-parent',
  'fork-loop',
  'exit-at-timeout',
] as const;
export const OUTPUT_SCENARIOS = [
  'output-flood',
  'invalid-utf8',
  'agent-usage-limit',
  'agent-auth-failure',
  'agent-cancelled',
] as const;
export const LIMIT_SCENARIOS = ['memory-balloon', 'fork-bomb', 'cpu-spin', 'silent-hang'] as const;
export const AGENT_SCENARIOS = ['agent-wrapper-leak', 'agent-terminal-closed', 'agent-subagent-pileup'] as const;
/** Agent-leak scenarios that need tmux (run through the CLI only). */
export const TEAM_SCENARIOS = ['agent-team-tmux-leftover'] as const;
/** Needs a Docker Engine (containers.test.ts). */
export const CONTAINER_SCENARIOS = ['container-left-by-session'] as const;
/** What agents start beside their tree: a browser (needs Chromium) and a watcher (tools.test.ts). */
export const TOOL_SCENARIOS = ['browser-left-by-mcp', 'watcher-eating-fds'] as const;
export const PILE_SCENARIOS = ['pile-duplicate-mcp', 'pile-stale-subagents', 'pile-runaway-job'] as const;
export const PRIVILEGED_SCENARIOS = ['harness-sigkill', 'pid-reuse'] as const;

/** Beyond the scenario's own time bound: its cleanup sweep and vitest's own overhead. */
const TEST_MARGIN_MS = 60_000;

export function testTimeoutFor(name: string): number {
  return findScenario(name).bounds.maxMs + TEST_MARGIN_MS;
}

function isRunningState(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Live processes carrying `TREEWARDEN_RUN_ID=<runId>` or working inside `dir`: "pid cmdline". */
export function findLeftovers(runId: string, dir: string): string[] {
  const cookie = `TREEWARDEN_RUN_ID=${runId}`;
  const found: string[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    let belongs = false;
    try {
      belongs = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(cookie);
    } catch {
      // Gone, or a zombie.
    }
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      belongs ||= dir.length > 0 && (cwd === dir || cwd.startsWith(`${dir}/`));
    } catch {
      // Gone, or a zombie.
    }
    if (!belongs || !isRunningState(pid)) continue;
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ').trim();
    } catch {
      // Gone between the reads.
    }
    found.push(`${pid} ${cmdline}`);
  }
  return found;
}

/** Readable failure context: the steps, as the CLI would print them. */
export function narrate(result: ScenarioResult): string {
  return result.steps.map((step) => `+${step.atMs} ms ${step.text}`).join('\n');
}

/** The run under Treewarden went as the definition expects, and nothing of it is alive. */
export function expectScenarioPassed(result: ScenarioResult): void {
  const story = narrate(result);
  expect(result.available, story).toBe(true);
  expect(result.boundsExceeded, story).toBeNull();
  expect(result.actual.classification, story).toBe(result.expected.classification);
  expect(result.survivors, story).toEqual([]);
  expect(
    result.checks.filter((check) => !check.ok),
    story,
  ).toEqual([]);
  expect(result.cleanup?.survivors, story).toEqual([]);
  expect(result.passed, story).toBe(true);
  expect(findLeftovers(result.runId, result.dir), story).toEqual([]);
}

/** Naive mode: something was left alive by the naive approach, and the engine then ended it all. */
export function expectNaiveLeftSurvivorsThenCleaned(result: ScenarioResult): void {
  const story = narrate(result);
  expect(result.mode).toBe('naive');
  expect(result.survivors.length, story).toBeGreaterThan(0);
  expect(result.cleanup?.found, story).toBeGreaterThanOrEqual(result.survivors.length);
  expect(result.cleanup?.survivors, story).toEqual([]);
  expect(result.passed, story).toBe(true);
  expect(findLeftovers(result.runId, result.dir), story).toEqual([]);
}

/**
 * Runs scenarios for a test file, with a safety net: whatever a scenario left (its own cleanup
 * already ran, unless the test failed before it got there), the engine sweeps after each test.
 */
export function useScenarioRunner(): (name: string, options?: ScenarioRunOptions) => Promise<ScenarioResult> {
  const started: { runId: string; dir: string }[] = [];
  afterEach(async () => {
    for (const { runId, dir } of started.splice(0)) {
      if (runId.length > 0) await sweepScenario(runId, dir);
    }
  });
  return (name, options = {}) => {
    const execution = startScenario(name, options);
    started.push({ runId: execution.runId, dir: execution.dir });
    return execution.result;
  };
}

/** The built CLI, run as a program by the CLI-level scenario tests. */
export const CLI = fileURLToPath(new URL('../../../apps/cli/dist/main.js', import.meta.url));
/** Appended to a test's name when the CLI is not built, so the skip says why. */
export const CLI_MISSING = existsSync(CLI) ? '' : ` [SKIPPED: ${CLI} is not built; run npx tsc -b]`;

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Bound on one scenario CLI run in these tests (the slowest scenario plus start-up under load). */
const SCENARIO_CLI_WAIT_MS = 90_000;

/** Everything a CLI child prints, and its exit code, once it closed (bounded; SIGKILLed past the bound). */
export function collect(child: ChildProcess): Promise<CliRun> {
  return collectOutput(child, {
    description: 'treewarden scenario',
    timeoutMs: SCENARIO_CLI_WAIT_MS,
    killOnTimeout: true,
  });
}
