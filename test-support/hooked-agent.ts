import { randomUUID } from 'node:crypto';
import { CLI_MAIN } from './cli-helpers.js';
import { launchStubAgent } from './fake-agents.js';
import { type ProcessTracker, type ReportedProcess, readReportedPids, readReports } from './index.js';

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
  const sessionId = options.sessionId ?? randomUUID();
  tracker.trackEnvMarker('CLAUDE_CODE_SESSION_ID', sessionId);
  const { dir, rootPid, reportFile } = launchStubAgent(tracker, {
    tempPrefix: 'tw-hooked-',
    stub: HOOKED_CLAUDE_STUB,
    fixture: 'agents/hooked-claude.mjs',
    env: {
      ...options.env,
      FAKE_SESSION_ID: sessionId,
      FAKE_HOOK_COMMAND: builtHookCommand(),
      ...(options.malformedHook === true ? { FAKE_MALFORMED_HOOK: '1' } : {}),
    },
  });
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
