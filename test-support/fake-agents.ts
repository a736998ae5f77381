/**
 * Fake coding agents installed the way npm installs the real ones: a stub at
 * `<tmp>/node_modules/@anthropic-ai/claude-code/cli.js` (or `@openai/codex/bin/codex.js`) that
 * imports the fixture, so the root's argv has the real shape. Every reported pid is tracked.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readProcTable } from '@treewarden/engine';
import {
  fixturePath,
  MAX_LIFETIME_ENV,
  makeTempDir,
  type ProcessTracker,
  pollUntil,
  REPORT_ENV,
  type ReportedProcess,
  readReportedPids,
  TEST_FIXTURE_LIFETIME_MS,
} from './index.js';

export const CLAUDE_STUB = 'node_modules/@anthropic-ai/claude-code/cli.js';
export const CODEX_STUB = 'node_modules/@openai/codex/bin/codex.js';
/** claude-root, npx-wrapper, mcp-server, dev-server, subagent. */
export const CLAUDE_REPORTS = 5;
/** codex-root and two MCP servers. */
export const CODEX_REPORTS = 3;
/** Processes of the fake Claude that do not report (the two `sh -c`): found through the table. */
export const CLAUDE_SHELLS = 2;

export interface FakeAgent {
  readonly dir: string;
  readonly rootPid: number;
  readonly reports: readonly ReportedProcess[];
  /** Every live process of the tree, reporting or not (the `sh -c` shells). */
  readonly pids: readonly number[];
}

function installStub(dir: string, stub: string, fixture: string): string {
  const path = join(dir, stub);
  mkdirSync(join(path, '..'), { recursive: true });
  // CommonJS (no package.json here): a dynamic import loads the ES module fixture.
  writeFileSync(path, `import(${JSON.stringify(pathToFileURL(fixturePath(fixture)).href)});\n`);
  return path;
}

export interface LaunchedStubAgent {
  readonly dir: string;
  readonly rootPid: number;
  readonly reportFile: string;
}

/**
 * Installs `fixture` at the npm path `stub` in a fresh temp dir and starts it there in its own
 * group and session (as a terminal starts a job), reporting to the dir's report.jsonl. The root
 * is tracked; the caller waits for its reports.
 */
export function launchStubAgent(
  tracker: ProcessTracker,
  launch: {
    readonly tempPrefix: string;
    readonly stub: string;
    readonly fixture: string;
    readonly env?: Readonly<Record<string, string>>;
  },
): LaunchedStubAgent {
  const dir = makeTempDir(launch.tempPrefix);
  const stubPath = installStub(dir, launch.stub, launch.fixture);
  const reportFile = join(dir, 'report.jsonl');
  const child = spawn(process.execPath, [stubPath], {
    cwd: dir,
    detached: true,
    stdio: 'ignore',
    env: {
      ...process.env,
      ...launch.env,
      [REPORT_ENV]: reportFile,
      [MAX_LIFETIME_ENV]: String(TEST_FIXTURE_LIFETIME_MS),
    },
  });
  return { dir, rootPid: tracker.trackChild(child, { detached: true }), reportFile };
}

/** Every live descendant of `rootPid`, plus the `reported` pids (and their descendants). */
export function treePids(rootPid: number, reported: readonly number[] = []): number[] {
  const table = readProcTable();
  const pids = new Set<number>([rootPid, ...reported]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const entry of table.entries.values()) {
      if (!pids.has(entry.pid) && pids.has(entry.ppid)) {
        pids.add(entry.pid);
        grew = true;
      }
    }
  }
  return [...pids].filter((pid) => table.entries.has(pid));
}

export async function startFakeAgent(tracker: ProcessTracker, kind: 'claude' | 'codex'): Promise<FakeAgent> {
  const { dir, rootPid, reportFile } = launchStubAgent(tracker, {
    tempPrefix: 'tw-agent-',
    ...(kind === 'claude'
      ? { stub: CLAUDE_STUB, fixture: 'agents/fake-claude.mjs' }
      : { stub: CODEX_STUB, fixture: 'agents/fake-codex.mjs' }),
  });
  const reports = await readReportedPids(tracker, reportFile, kind === 'claude' ? CLAUDE_REPORTS : CODEX_REPORTS);
  const reported = reports.map((report) => report.pid);
  const expected = reported.length + (kind === 'claude' ? CLAUDE_SHELLS : 0);
  const pids = await pollUntil(
    () => {
      const found = treePids(rootPid, reported);
      return found.length >= expected ? found : null;
    },
    { description: `the fake ${kind}'s whole tree` },
  );
  for (const pid of pids) tracker.trackPid(pid);
  return { dir, rootPid, reports, pids };
}

export function pidOf(agent: FakeAgent, role: string): number {
  const report = agent.reports.find((candidate) => candidate.role === role);
  if (report === undefined) throw new Error(`no ${role} in the fake agent's reports`);
  return report.pid;
}
