/**
 * A fake Claude session running what agents start beside MCP servers (fixtures/agents/
 * fake-claude-tools.mjs): a real headless Chromium under a fake browser MCP server, a `tsx
 * watch`-shaped watcher holding inotify watches and fds, a language server's shape. The agent's
 * process group is tracked (Chromium and its zygotes, renderers and GPU process stay in it).
 */
import { join } from 'node:path';
import { CLAUDE_STUB, launchStubAgent, treePids } from './fake-agents.js';
import { makeTempDir, type ProcessTracker, type ReportedProcess, readReportedPids } from './index.js';

export const CHROMIUM = '/usr/bin/chromium';

export interface ToolsShape {
  /** Start the browser MCP server with Chromium (profile `playwright_chromiumdev_profile-*`). */
  readonly browser?: boolean;
  readonly watchFiles?: number;
  readonly openFds?: number;
  /** The watcher's soft and hard fd limit (`ulimit -n`). */
  readonly fdLimit?: number;
  readonly languageServer?: boolean;
  /** Once `trigger` exists, a member shell runs `docker run -d --network none --name NAME IMAGE sleep 600` on `socketPath`. */
  readonly dockerRun?: {
    readonly trigger: string;
    readonly name: string;
    readonly image: string;
    readonly socketPath: string;
  };
}

export interface ToolsAgent {
  readonly dir: string;
  readonly rootPid: number;
  readonly sessionId: string;
  readonly profile: string | null;
  readonly reports: readonly ReportedProcess[];
}

export async function startToolsAgent(tracker: ProcessTracker, shape: ToolsShape): Promise<ToolsAgent> {
  const profile =
    shape.browser === true ? join(makeTempDir('tw-browser-'), 'playwright_chromiumdev_profile-test') : null;
  const env: Record<string, string> = {
    ...(profile !== null ? { TOOLS_BROWSER_PROFILE: profile } : {}),
    ...(shape.watchFiles !== undefined ? { TOOLS_WATCH_FILES: String(shape.watchFiles) } : {}),
    ...(shape.openFds !== undefined ? { TOOLS_OPEN_FDS: String(shape.openFds) } : {}),
    ...(shape.fdLimit !== undefined ? { TOOLS_FD_LIMIT: String(shape.fdLimit) } : {}),
    ...(shape.languageServer === true ? { TOOLS_LANGUAGE_SERVER: '1' } : {}),
    ...(shape.dockerRun !== undefined
      ? {
          TOOLS_DOCKER_RUN_WHEN: shape.dockerRun.trigger,
          TOOLS_DOCKER_NAME: shape.dockerRun.name,
          TOOLS_DOCKER_IMAGE: shape.dockerRun.image,
          DOCKER_HOST: `unix://${shape.dockerRun.socketPath}`,
        }
      : {}),
  };
  const { dir, rootPid, reportFile } = launchStubAgent(tracker, {
    tempPrefix: 'tw-tools-',
    stub: CLAUDE_STUB,
    fixture: 'agents/fake-claude-tools.mjs',
    env,
  });
  // Chromium's own processes stay in the agent's group (its main one is the tracked child's).
  tracker.trackGroup(rootPid);
  const expected =
    1 + (profile !== null ? 2 : 0) + (shape.watchFiles !== undefined ? 1 : 0) + (shape.languageServer === true ? 1 : 0);
  const reports = await readReportedPids(tracker, reportFile, expected);
  for (const pid of treePids(rootPid)) tracker.trackPid(pid);
  const root = reports.find((report) => report.role === 'claude-root');
  const sessionId = typeof root?.sessionId === 'string' ? root.sessionId : '';
  // Whatever carries the session's marker is ended at cleanup, wherever it was reparented.
  if (sessionId !== '') tracker.trackEnvMarker('CLAUDE_CODE_SESSION_ID', sessionId);
  return { dir, rootPid, sessionId, profile, reports };
}

export function reportedPid(agent: ToolsAgent, role: string): number {
  const report = agent.reports.find((candidate) => candidate.role === role);
  if (report === undefined) throw new Error(`no ${role} in the fake agent's reports`);
  return report.pid;
}
