import { CLAUDE_STUB, launchStubAgent, treePids } from './fake-agents.js';
import { type ProcessTracker, type ReportedProcess, readReportedPids, startTimeOf } from './index.js';

export interface PileShape {
  readonly mcpSets?: number;
  readonly subagents?: number;
  readonly orphanSubagents?: number;
  readonly spin?: boolean;
}

export interface PileAgent {
  readonly dir: string;
  readonly rootPid: number;
  readonly sessionId: string;
  readonly reports: readonly ReportedProcess[];
}

function expectedReports(shape: PileShape): number {
  const sets = shape.mcpSets ?? 0;
  return 1 + sets * 2 + (shape.subagents ?? 0) + (shape.orphanSubagents ?? 0) + (shape.spin === true ? 1 : 0);
}

export async function startPileAgent(tracker: ProcessTracker, shape: PileShape): Promise<PileAgent> {
  const { dir, rootPid, reportFile } = launchStubAgent(tracker, {
    tempPrefix: 'tw-piles-',
    stub: CLAUDE_STUB,
    fixture: 'agents/fake-claude-piles.mjs',
    env: {
      PILE_MCP_SETS: String(shape.mcpSets ?? 0),
      PILE_SUBAGENTS: String(shape.subagents ?? 0),
      PILE_ORPHAN_SUBAGENTS: String(shape.orphanSubagents ?? 0),
      PILE_SPIN: shape.spin === true ? '1' : '0',
    },
  });
  const reports = await readReportedPids(tracker, reportFile, expectedReports(shape));
  // The root's descendants that do not report (the shells).
  for (const pid of treePids(rootPid)) tracker.trackPid(pid);
  const root = reports.find((report) => report.role === 'claude-root');
  const sessionId = typeof root?.sessionId === 'string' ? root.sessionId : '';
  return { dir, rootPid, sessionId, reports };
}

/**
 * Pids reported with this role, in report order: the order they were ready, not started (a newer
 * set's server can report before an older one's). Use `byStartTime` or `mcpSetsOldestFirst` for age.
 */
export function pidsOf(agent: PileAgent, role: string): number[] {
  return agent.reports.filter((report) => report.role === role).map((report) => report.pid);
}

/** Oldest first, by the kernel's start time (ties, within one clock tick, by pid). */
export function byStartTime(pids: readonly number[]): number[] {
  return [...pids].sort((a, b) => Number(BigInt(startTimeOf(a)) - BigInt(startTimeOf(b))) || a - b);
}

/** The agent's MCP sets oldest first, each as [wrapper, server] (a server's parent is its wrapper). */
export function mcpSetsOldestFirst(agent: PileAgent): number[][] {
  const servers = agent.reports.filter((report) => report.role === 'mcp-server');
  return byStartTime(pidsOf(agent, 'npx-wrapper')).map((wrapper) => [
    wrapper,
    ...servers.filter((server) => server.ppid === wrapper).map((server) => server.pid),
  ]);
}
