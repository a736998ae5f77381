/**
 * A fake Claude Code whose live session holds pile-ups (fixtures/agents/fake-claude-piles.mjs),
 * installed the npm way so the root has the real argv shape. Every reported pid is tracked, and
 * every other process of its tree (the `sh -c` shells).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readProcTable } from '@treewarden/engine';
import { CLAUDE_STUB } from './fake-agents.js';
import {
  fixturePath,
  MAX_LIFETIME_ENV,
  makeTempDir,
  type ProcessTracker,
  REPORT_ENV,
  type ReportedProcess,
  readReportedPids,
  TEST_FIXTURE_LIFETIME_MS,
} from './index.js';

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

/** Tracks the root's descendants that do not report (the shells). */
function trackTree(tracker: ProcessTracker, rootPid: number): void {
  const table = readProcTable();
  const pids = new Set([rootPid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const entry of table.entries.values())
      if (!pids.has(entry.pid) && pids.has(entry.ppid)) {
        pids.add(entry.pid);
        tracker.trackPid(entry.pid);
        grew = true;
      }
  }
}

export async function startPileAgent(tracker: ProcessTracker, shape: PileShape): Promise<PileAgent> {
  const dir = makeTempDir('tw-piles-');
  const stub = join(dir, CLAUDE_STUB);
  mkdirSync(join(stub, '..'), { recursive: true });
  writeFileSync(stub, `import(${JSON.stringify(pathToFileURL(fixturePath('agents/fake-claude-piles.mjs')).href)});\n`);
  const reportFile = join(dir, 'report.jsonl');
  const child = spawn(process.execPath, [stub], {
    cwd: dir,
    detached: true,
    stdio: 'ignore',
    env: {
      ...process.env,
      [REPORT_ENV]: reportFile,
      [MAX_LIFETIME_ENV]: String(TEST_FIXTURE_LIFETIME_MS),
      PILE_MCP_SETS: String(shape.mcpSets ?? 0),
      PILE_SUBAGENTS: String(shape.subagents ?? 0),
      PILE_ORPHAN_SUBAGENTS: String(shape.orphanSubagents ?? 0),
      PILE_SPIN: shape.spin === true ? '1' : '0',
    },
  });
  const rootPid = tracker.trackChild(child, { detached: true });
  const reports = await readReportedPids(tracker, reportFile, expectedReports(shape));
  trackTree(tracker, rootPid);
  const root = reports.find((report) => report.role === 'claude-root');
  const sessionId = typeof root?.sessionId === 'string' ? root.sessionId : '';
  return { dir, rootPid, sessionId, reports };
}

/** Pids reported with this role, in report order (for sets: start order). */
export function pidsOf(agent: PileAgent, role: string): number[] {
  return agent.reports.filter((report) => report.role === role).map((report) => report.pid);
}
