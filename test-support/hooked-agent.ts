/**
 * A fake Claude Code that runs Treewarden's session hooks as the real one runs its hooks (the
 * fixture agents/hooked-claude.mjs, installed at the npm path so its argv has the real shape).
 * Every process it starts is tracked (by report, and by its session id in the environment).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CLI_MAIN } from './cli-helpers.js';
import {
  fixturePath,
  MAX_LIFETIME_ENV,
  makeTempDir,
  type ProcessTracker,
  REPORT_ENV,
  type ReportedProcess,
  readReportedPids,
  readReports,
  TEST_FIXTURE_LIFETIME_MS,
} from './index.js';

export const HOOKED_CLAUDE_STUB = 'node_modules/@anthropic-ai/claude-code/cli.js';
/** claude-root, SessionStart hook result, member, dev-server (setsid'ed), no-id-child. */
export const HOOKED_CLAUDE_REPORTS = 5;

export interface HookedAgent {
  readonly dir: string;
  readonly rootPid: number;
  readonly sessionId: string;
  readonly reportFile: string;
  readonly reports: readonly ReportedProcess[];
}

/** Quoted as `hooks install` quotes: bare when only safe characters, else single quotes. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** The command line `hooks install` would write, for the built CLI. */
export function builtHookCommand(agent = 'claude'): string {
  return [process.execPath, CLI_MAIN, 'hook', agent].map(shellWord).join(' ');
}

export async function startHookedClaude(
  tracker: ProcessTracker,
  options: {
    readonly malformedHook?: boolean;
    readonly env?: Readonly<Record<string, string>>;
    /** The session id to use (default: a fresh one). */
    readonly sessionId?: string;
  } = {},
): Promise<HookedAgent> {
  const dir = makeTempDir('tw-hooked-');
  const stub = join(dir, HOOKED_CLAUDE_STUB);
  mkdirSync(join(stub, '..'), { recursive: true });
  writeFileSync(stub, `import(${JSON.stringify(pathToFileURL(fixturePath('agents/hooked-claude.mjs')).href)});\n`);
  const sessionId = options.sessionId ?? randomUUID();
  tracker.trackEnvMarker('CLAUDE_CODE_SESSION_ID', sessionId);
  const reportFile = join(dir, 'report.jsonl');
  const child = spawn(process.execPath, [stub], {
    cwd: dir,
    detached: true,
    stdio: 'ignore',
    env: {
      ...process.env,
      ...options.env,
      [REPORT_ENV]: reportFile,
      [MAX_LIFETIME_ENV]: String(TEST_FIXTURE_LIFETIME_MS),
      FAKE_SESSION_ID: sessionId,
      FAKE_HOOK_COMMAND: builtHookCommand(),
      ...(options.malformedHook === true ? { FAKE_MALFORMED_HOOK: '1' } : {}),
    },
  });
  const rootPid = tracker.trackChild(child, { detached: true });
  const count = HOOKED_CLAUDE_REPORTS + (options.malformedHook === true ? 1 : 0);
  const reports = await readReportedPids(tracker, reportFile, count);
  return { dir, rootPid, sessionId, reportFile, reports };
}

/** The hook results the fake agent reported, by event (null: the malformed input). */
export function hookReports(agent: HookedAgent): ReportedProcess[] {
  return readReports(agent.reportFile).filter((report) => report.role === 'hook');
}

export function reportedPid(agent: HookedAgent, role: string): number {
  const report = agent.reports.find((candidate) => candidate.role === role);
  if (report === undefined) throw new Error(`no ${role} in the hooked agent's reports`);
  return report.pid;
}
