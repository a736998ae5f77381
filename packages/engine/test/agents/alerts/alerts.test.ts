/**
 * Pile-up alerts over real process trees: fake Claude sessions (installed the npm way) holding
 * duplicate MCP server sets, stale subagents and a spinning background job, judged as the CLI and
 * the host judge them. Every alert names exactly the piled processes; the agent root, the newest
 * server set, another live session's members and a marker-less process are never alerted or
 * trimmed, and a changed identity is refused with nothing signalled.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CODEX_STUB, launchStubAgent } from '../../../../../test-support/fake-agents.js';
import {
  byStartTime,
  mcpSetsOldestFirst,
  type PileAgent,
  pidsOf,
  startPileAgent,
} from '../../../../../test-support/fake-piles.js';
import {
  fixturePath,
  isRunning,
  MAX_LIFETIME_ENV,
  pollUntil,
  readReportedPids,
  TEST_FIXTURE_LIFETIME_MS,
  useProcessTracker,
} from '../../../../../test-support/index.js';
import {
  createAlertTracker,
  type JudgedAlert,
  judgeSessionAlerts,
  parseAlertConfig,
  selectTrim,
  trimAlerts,
} from '../../../src/agents/alerts/index.js';
import { type AgentObservation, markerReaderFor, observeAgentsOnce } from '../../../src/agents/observe/observe.js';
import { loadAgentRules } from '../../../src/agents/rules/rules.js';
import { readLedger } from '../../../src/ledger/read.js';

/** Judging under load: a CLI-sized wait, not a timing claim. */
const ALERT_WAIT_MS = 20_000;
const tracker = useProcessTracker();

function privateState(): string {
  return mkdtempSync(join(tmpdir(), 'tw-alerts-state-'));
}

function observe(stateRoot: string): AgentObservation {
  const loaded = loadAgentRules(stateRoot);
  return observeAgentsOnce({ stateRoot, rules: loaded.rules, readMarkers: markerReaderFor(loaded.rules) });
}

/** Budgets off unless a test asks: a session of a dozen processes stays well inside the defaults anyway. */
const QUIET = { budgets: {} };

function judge(stateRoot: string, config: object = QUIET): JudgedAlert[] {
  const observation = observe(stateRoot);
  return judgeSessionAlerts({
    table: observation.table,
    live: observation.live,
    remembered: observation.sessions,
    config: parseAlertConfig(JSON.stringify(config)),
    now: Date.now(),
  });
}

function sessionOf(alerts: readonly JudgedAlert[], agent: PileAgent): JudgedAlert[] {
  return alerts.filter((alert) => alert.sessionId.startsWith(`claude-code-${agent.rootPid}-`));
}

function alertedPids(alerts: readonly JudgedAlert[]): Set<number> {
  return new Set(alerts.flatMap((alert) => alert.processes.map((entry) => entry.pid)));
}

/** A marker-less process (no agent's environment, reparented nowhere near a session). */
async function startStranger(): Promise<number> {
  const child = spawn(process.execPath, [fixturePath('run-forever.mjs')], {
    detached: true,
    stdio: 'ignore',
    env: { PATH: process.env.PATH ?? '', [MAX_LIFETIME_ENV]: String(TEST_FIXTURE_LIFETIME_MS) },
  });
  return tracker.trackChild(child, { detached: true });
}

describe('duplicate-servers', () => {
  it('alerts the older sets of one command line and keeps the newest; another session and strangers are never named', async () => {
    const state = privateState();
    const piled = await startPileAgent(tracker, { mcpSets: 3 });
    const other = await startPileAgent(tracker, { mcpSets: 1 });
    const stranger = await startStranger();
    const alerts = judge(state);
    const mine = sessionOf(alerts, piled);
    expect(mine.map((alert) => alert.kind)).toEqual(['duplicate-servers']);
    const sets = mcpSetsOldestFirst(piled);
    expect(sets.every((set) => set.length === 2)).toBe(true);
    expect([...alertedPids(mine)].sort()).toEqual([...(sets[0] ?? []), ...(sets[1] ?? [])].sort());
    expect(mine[0]?.why).toMatch(/3 sets of .*npx.*the newest \(pid \d+\) is kept/);
    const everything = alertedPids(alerts);
    for (const innocent of [
      piled.rootPid,
      ...(sets[2] ?? []),
      other.rootPid,
      ...mcpSetsOldestFirst(other).flat(),
      stranger,
    ])
      expect(everything.has(innocent), `pid ${innocent} alerted`).toBe(false);
    expect(sessionOf(alerts, other)).toEqual([]);
  });

  it('trims exactly the older sets (one ledger record per set) and leaves the newest, the root and the other session alive', async () => {
    const state = privateState();
    const ledgerFile = join(state, 'ledger.jsonl');
    const piled = await startPileAgent(tracker, { mcpSets: 2 });
    const other = await startPileAgent(tracker, { mcpSets: 2 });
    const [older, newest] = mcpSetsOldestFirst(piled) as [number[], number[]];
    const otherSets = mcpSetsOldestFirst(other).flat();
    const alerts = judge(state);
    const sessionId = sessionOf(alerts, piled)[0]?.sessionId as string;
    const selection = selectTrim(judge(state), { sessionId });
    expect(selection.alerts).toHaveLength(1);
    const [trimmed] = await trimAlerts(selection.alerts, { ledgerFile });
    expect(trimmed?.processes.map((process) => process.result)).toEqual(['killed', 'killed']);
    for (const pid of older) await pollUntil(() => !isRunning(pid), { description: `older set pid ${pid} gone` });
    for (const pid of [piled.rootPid, ...newest, other.rootPid, ...otherSets])
      expect(isRunning(pid), `pid ${pid} alive`).toBe(true);
    const kills = readLedger(ledgerFile).records.filter((record) => record.kind === 'kill');
    expect(kills).toHaveLength(1);
    expect(JSON.stringify(kills[0])).toMatch(/session_trim duplicate-servers/);
    // Judged again: nothing left to trim in that session, the other's own pile untouched.
    expect(sessionOf(judge(state), piled)).toEqual([]);
    expect(sessionOf(judge(state), other)).toHaveLength(1);
  });

  it('refuses a confirmed identity that changed or is no longer alerted, signalling nothing', async () => {
    const state = privateState();
    const piled = await startPileAgent(tracker, { mcpSets: 2 });
    const [older, newest] = mcpSetsOldestFirst(piled) as [number[], number[]];
    const alert = sessionOf(judge(state), piled)[0] as JudgedAlert;
    const wrapper = older[0] as number;
    const entry = alert.processes.find((process) => process.pid === wrapper);
    // The identity the user confirmed, with another start time: a recycled pid, as far as trim knows.
    const changed = { pid: wrapper, startTime: `${entry?.startTime}0` };
    const selection = selectTrim(judge(state), {
      sessionId: alert.sessionId,
      targets: [changed, { pid: newest[0] as number, startTime: `${newest[0]}` }],
    });
    expect(selection.alerts).toEqual([]);
    expect(selection.refused.map((report) => report.result)).toEqual(['refused', 'refused']);
    expect(selection.refused[0]?.detail).toMatch(/different process/);
    // A stale alert handed to the kill directly: the kill re-reads the start time and refuses.
    const stale: JudgedAlert = {
      ...alert,
      processes: alert.processes.map((process) =>
        process.pid === wrapper ? { ...process, startTime: changed.startTime } : process,
      ),
    };
    const [trimmed] = await trimAlerts([stale]);
    expect(trimmed?.processes.map((process) => process.result)).toEqual(['refused', 'refused']);
    for (const pid of [...older, ...newest, piled.rootPid]) expect(isRunning(pid), `pid ${pid} alive`).toBe(true);
  });
});

describe('stale-subagents', () => {
  it('alerts the subagents beyond the allowed count whose parent left, oldest first, never the live ones under the root', async () => {
    const state = privateState();
    const piled = await startPileAgent(tracker, { subagents: 1, orphanSubagents: 3 });
    const orphans = piled.reports.filter((report) => report.role === 'subagent' && report.ppid !== piled.rootPid);
    const alerts = judge(state, { ...QUIET, staleSubagents: { allowed: 1 } });
    const mine = sessionOf(alerts, piled);
    expect(mine.map((alert) => alert.kind)).toEqual(['stale-subagents']);
    const alerted = alertedPids(mine);
    expect(alerted.size).toBe(2);
    const live = piled.reports.filter((report) => report.role === 'subagent' && report.ppid === piled.rootPid);
    for (const report of live) expect(alerted.has(report.pid)).toBe(false);
    // Reparented: their reports name the shell that started them, which is gone.
    expect(orphans.length).toBe(3);
    for (const pid of alerted) expect(orphans.map((report) => report.pid)).toContain(pid);
    expect(mine[0]?.why).toMatch(/3 stale subagents \(3 whose parent left the session\), more than the 1 allowed/);
    expect(sessionOf(judge(state, { ...QUIET, staleSubagents: { allowed: 3 } }), piled)).toEqual([]);
  });

  it('counts an idle subagent under a live parent once the history shows no CPU for the idle time', async () => {
    const state = privateState();
    const piled = await startPileAgent(tracker, { subagents: 2 });
    const config = parseAlertConfig(JSON.stringify({ ...QUIET, staleSubagents: { allowed: 1, idleSeconds: 2 } }));
    const alerts = createAlertTracker({ config, sampleSpacingMs: 250 });
    // One-shot, without history: idleness is never assumed.
    expect(sessionOf(judge(state, { ...QUIET, staleSubagents: { allowed: 1, idleSeconds: 2 } }), piled)).toEqual([]);
    const found = await pollUntil(
      () => {
        const tick = alerts.tick(observe(state));
        return sessionOf(tick.found, piled).length > 0 ? sessionOf(tick.found, piled) : null;
      },
      { deadlineMs: ALERT_WAIT_MS, intervalMs: 250, description: 'the idle subagents to be alerted' },
    );
    const subagents = byStartTime(pidsOf(piled, 'subagent'));
    expect(found[0]?.kind).toBe('stale-subagents');
    expect([...alertedPids(found)]).toEqual([subagents[0]]);
    expect(found[0]?.why).toMatch(/idle \(no CPU\) for 2 s under a live parent/);
    // Found once: the next tick raises nothing new for the same processes.
    expect(sessionOf(alerts.tick(observe(state)).found, piled)).toEqual([]);
  });
});

describe('runaway-job', () => {
  it('alerts the spinning background job alone (not its shell, not the root) and clears once it is trimmed', async () => {
    const state = privateState();
    const piled = await startPileAgent(tracker, { spin: true, mcpSets: 1 });
    const [spinner] = pidsOf(piled, 'spinner') as [number];
    // A low bar for a loaded machine; idle members stay far below it (a Node start costs ~0.1 s of CPU).
    const config = { ...QUIET, runawayJob: { cpuPercent: 10, cpuSeconds: 4 } };
    const alerts = createAlertTracker({ config: parseAlertConfig(JSON.stringify(config)) });
    const found = await pollUntil(
      () => {
        const mine = sessionOf(alerts.tick(observe(state)).alerts, piled);
        return mine.length > 0 ? mine : null;
      },
      { deadlineMs: ALERT_WAIT_MS, intervalMs: 500, description: 'the spinning job to be alerted' },
    );
    expect(found.map((alert) => [alert.kind, alert.processes.map((entry) => entry.pid)])).toEqual([
      ['runaway-job', [spinner]],
    ]);
    expect(found[0]?.why).toMatch(new RegExp(`pid ${spinner} .*cpu-spin.*CPU averaged \\d+ %`));
    const [trimmed] = await trimAlerts(selectTrim(found, { sessionId: found[0]?.sessionId as string }).alerts);
    expect(trimmed?.processes.map((process) => process.result)).toEqual(['killed']);
    const cleared = await pollUntil(
      () => {
        const cleared = sessionOf(alerts.tick(observe(state)).cleared, piled);
        return cleared.length > 0 ? cleared : null;
      },
      { description: 'the alert to clear' },
    );
    expect(cleared.map((alert) => alert.id)).toEqual([found[0]?.id]);
    for (const pid of [piled.rootPid, ...mcpSetsOldestFirst(piled).flat()]) expect(isRunning(pid)).toBe(true);
  });
});

describe('budget', () => {
  it("alerts a session over its agent's process budget, naming its members but never the root", async () => {
    const state = privateState();
    const piled = await startPileAgent(tracker, { mcpSets: 2 });
    const alerts = sessionOf(
      judge(state, { budgets: { '*': { processes: 100 }, 'claude-code': { processes: 4 } } }),
      piled,
    );
    const budget = alerts.find((alert) => alert.kind === 'budget');
    expect(budget?.why).toMatch(/5 processes \(budget 4\)/);
    expect([...alertedPids([budget as JudgedAlert])].sort()).toEqual(mcpSetsOldestFirst(piled).flat().sort());
    expect(alertedPids(alerts).has(piled.rootPid)).toBe(false);
    // Without `--kind budget`, trim leaves the budget alert out (it names the whole session).
    const selection = selectTrim(alerts, { sessionId: budget?.sessionId as string });
    expect(selection.alerts.map((alert) => alert.kind)).toEqual(['duplicate-servers']);
    expect(sessionOf(judge(state, { budgets: { '*': { processes: 100 } } }), piled).map((a) => a.kind)).toEqual([
      'duplicate-servers',
    ]);
  });

  it('never names a nested agent nor its thread-id child: trim --kind budget ends the session’s own members only', async () => {
    const state = privateState();
    const { rootPid, reportFile } = launchStubAgent(tracker, {
      tempPrefix: 'tw-nested-codex-',
      stub: CODEX_STUB,
      fixture: 'agents/nested-codex.mjs',
    });
    const reports = await readReportedPids(tracker, reportFile, 4);
    const pid = (role: string) => reports.find((report) => report.role === role)?.pid as number;
    const [tool, nested, nestedChild] = [pid('outer-tool'), pid('nested-codex'), pid('nested-thread-child')];
    const budgetOf = () =>
      judge(state, { budgets: { '*': { processes: 1 } } }).filter(
        (alert) => alert.kind === 'budget' && alert.sessionId.startsWith(`codex-${rootPid}-`),
      );
    const [budget] = await pollUntil(() => (budgetOf().length === 1 ? budgetOf() : null), {
      description: 'the outer session over its budget',
      deadlineMs: ALERT_WAIT_MS,
    });
    expect([...alertedPids([budget as JudgedAlert])]).toEqual([tool]);
    expect((budget as JudgedAlert).why).toMatch(/2 processes \(budget 1\)/);
    const selection = selectTrim([budget as JudgedAlert], {
      sessionId: (budget as JudgedAlert).sessionId,
      kind: 'budget',
    });
    await trimAlerts(selection.alerts);
    await pollUntil(() => !isRunning(tool) || null, { description: 'the outer tool ended', deadlineMs: ALERT_WAIT_MS });
    expect([isRunning(rootPid), isRunning(nested), isRunning(nestedChild)]).toEqual([true, true, true]);
  });
});
