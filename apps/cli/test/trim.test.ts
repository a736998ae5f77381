/**
 * Pile-ups through the built CLI, on fake Claude sessions installed like the real one: `sessions
 * --json` carries each live session's alerts; `trim` previews exactly the alerted identities,
 * ends them with --yes (the newest server set, the root and another session untouched, one ledger
 * record per set), refuses a changed identity with exit 3 and says 1 when nothing is alerted;
 * `watch --json` reports each alert once, and trims only kinds the user opted into.
 */
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentSessionRow, agentSessionsReportSchema, sessionAlertSchema } from '@treewarden/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, startCli } from '../../../test-support/cli-helpers.js';
import { mcpSetsOldestFirst, type PileAgent, pidsOf, startPileAgent } from '../../../test-support/fake-piles.js';
import { agentSessionId, isRunning, pollUntil, startTimeOf, useProcessTracker } from '../../../test-support/index.js';

/** Bound on a watch noticing a pile (CLI start-up and a full scan under load included). */
const WATCH_WAIT_MS = 25_000;
/** A test that runs the CLI a dozen times, each start a second or two on a loaded machine. */
const MANY_CLI_RUNS_MS = 120_000;
const tracker = useProcessTracker();

beforeAll(() => assertBuilt());

/** A private state dir of its own, with an alert config: budgets off so the piles alone alert. */
function stateWith(config: object = {}): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), 'tw-trim-'));
  chmodSync(home, 0o700);
  writeFileSync(join(home, 'agent-alerts.json'), JSON.stringify({ budgets: {}, ...config }), { mode: 0o600 });
  return { TREEWARDEN_HOME: home };
}

async function liveRow(env: Record<string, string>, agent: PileAgent): Promise<AgentSessionRow> {
  const result = await runCli(['sessions', '--json'], env);
  expect(result.code, result.stderr).toBe(0);
  const report = agentSessionsReportSchema.parse(JSON.parse(result.stdout));
  const row = report.sessions.find((session) => session.root.pid === agent.rootPid && session.state === 'live');
  if (row === undefined) throw new Error(`no live session for root ${agent.rootPid}`);
  return row;
}

describe.skipIf(process.platform !== 'linux')('treewarden sessions and trim', () => {
  it(
    'sessions --json carries the alerts; trim previews, ends exactly the older sets with --yes, then has nothing to trim',
    async () => {
      const env = stateWith();
      const piled = await startPileAgent(tracker, { mcpSets: 3 });
      const other = await startPileAgent(tracker, { mcpSets: 2 });
      const [oldest, older, newest] = mcpSetsOldestFirst(piled) as [number[], number[], number[]];
      const otherPids = [other.rootPid, ...mcpSetsOldestFirst(other).flat()];
      const row = await liveRow(env, piled);
      expect(row.alerts?.map((alert) => sessionAlertSchema.parse(alert).kind)).toEqual(['duplicate-servers']);
      expect([...(row.alerts?.[0]?.pids ?? [])].sort()).toEqual([...oldest, ...older].sort());
      const text = await runCli(['sessions'], env);
      expect(text.stdout).toMatch(/^ {2}ALERT duplicate-servers: pids [\d ]+: 3 sets of/m);

      const preview = await runCli(['trim', row.id, '--json'], env);
      expect(preview.code, preview.stderr).toBe(0);
      const shown = JSON.parse(preview.stdout) as { preview: boolean; alerts: { pids: number[]; why: string }[] };
      expect(shown.preview).toBe(true);
      expect([...(shown.alerts[0]?.pids ?? [])].sort()).toEqual([...oldest, ...older].sort());
      for (const pid of [...oldest, ...older]) expect(isRunning(pid), `preview ended ${pid}`).toBe(true);

      const done = await runCli(['trim', row.id, '--yes'], env);
      expect(done.code, done.stdout + done.stderr).toBe(0);
      for (const pid of [...oldest, ...older]) expect(isRunning(pid), `pid ${pid} survived`).toBe(false);
      for (const pid of [piled.rootPid, ...newest, ...otherPids]) expect(isRunning(pid), `pid ${pid} ended`).toBe(true);
      const ledger = readFileSync(join(env.TREEWARDEN_HOME as string, 'ledger.jsonl'), 'utf8')
        .trim()
        .split('\n');
      const trims = ledger.filter((line) => line.includes('"kind":"kill"') && line.includes('session_trim'));
      expect(trims).toHaveLength(2);

      const again = await runCli(['trim', row.id, '--yes'], env);
      expect(again.code).toBe(1);
      expect(again.stdout).toMatch(/nothing alerted/);
      expect((await runCli(['trim', 'claude-code-1-1'], env)).code).toBe(1);
      expect((await runCli(['trim', row.id, '--kind', 'everything'], env)).code).toBe(2);
    },
    MANY_CLI_RUNS_MS,
  );

  it(
    'refuses with exit 3 a confirmed identity that changed or is no longer alerted, signalling nothing',
    async () => {
      const env = stateWith();
      const piled = await startPileAgent(tracker, { mcpSets: 2 });
      const [older, newest] = mcpSetsOldestFirst(piled) as [number[], number[]];
      const row = await liveRow(env, piled);
      const wrapper = older[0] as number;
      const changed = await runCli(['trim', row.id, '--yes', '--target', `${wrapper}:${startTimeOf(wrapper)}0`], env);
      expect(changed.code, changed.stdout).toBe(3);
      expect(changed.stdout).toMatch(/different process/);
      const kept = newest[0] as number;
      const notAlerted = await runCli(
        ['trim', row.id, '--yes', '--json', '--target', `${kept}:${startTimeOf(kept)}`],
        env,
      );
      expect(notAlerted.code).toBe(3);
      expect(notAlerted.stdout).toMatch(/no longer alerted/);
      for (const pid of [piled.rootPid, ...older, ...newest]) expect(isRunning(pid), `pid ${pid} ended`).toBe(true);
      // The identity as shown: trimmed alone, its server with it would be a stranger under it, so both are named.
      const confirmed = older.map((pid) => `${pid}:${startTimeOf(pid)}`).flatMap((target) => ['--target', target]);
      const done = await runCli(['trim', row.id, '--yes', ...confirmed], env);
      expect(done.code, done.stdout).toBe(0);
      for (const pid of older) expect(isRunning(pid)).toBe(false);
    },
    MANY_CLI_RUNS_MS,
  );
});

describe.skipIf(process.platform !== 'linux')('treewarden watch and alerts', () => {
  function collect(child: ReturnType<typeof startCli>['child']): { type: string; [key: string]: unknown }[] {
    const events: { type: string; [key: string]: unknown }[] = [];
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') events.push(JSON.parse(line));
    });
    return events;
  }

  it('reports alert-found once per alert and trims nothing unless the kind was opted into', async () => {
    const piled = await startPileAgent(tracker, { mcpSets: 2 });
    const [older, newest] = mcpSetsOldestFirst(piled) as [number[], number[]];
    const watch = startCli(['watch', '--json'], stateWith());
    tracker.trackChild(watch.child);
    const events = collect(watch.child);
    const mine = (type: string) =>
      events.filter(
        (event) => event.type === type && String(event.sessionId).startsWith(`claude-code-${piled.rootPid}-`),
      );
    const [found] = await pollUntil(() => (mine('alert-found').length > 0 ? mine('alert-found') : null), {
      deadlineMs: WATCH_WAIT_MS,
      description: 'alert-found',
    });
    expect(found?.kind).toBe('duplicate-servers');
    expect([...((found?.pids as number[] | undefined) ?? [])].sort()).toEqual([...older].sort());
    // Gone by hand: the alert clears, once.
    tracker.trackPid(older[0] as number);
    process.kill(older[1] as number, 'SIGKILL');
    process.kill(older[0] as number, 'SIGKILL');
    await pollUntil(() => mine('alert-cleared').length > 0, {
      deadlineMs: WATCH_WAIT_MS,
      description: 'alert-cleared',
    });
    expect(mine('alert-found')).toHaveLength(1);
    expect(mine('alert-cleared')[0]?.id).toBe(found?.id);
    expect(mine('alert-trimmed')).toEqual([]);
    for (const pid of [piled.rootPid, ...newest]) expect(isRunning(pid)).toBe(true);
    watch.child.kill('SIGINT');
    expect((await watch.result).code).toBe(0);
  });

  it('trims the kinds the user opted into, and only those, in its --session only', async () => {
    const piled = await startPileAgent(tracker, { mcpSets: 2, orphanSubagents: 3 });
    const other = await startPileAgent(tracker, { mcpSets: 2 });
    const [older, newest] = mcpSetsOldestFirst(piled) as [number[], number[]];
    const env = stateWith({
      autoTrim: { kinds: ['duplicate-servers'], afterSeconds: 0 },
      staleSubagents: { allowed: 0 },
    });
    // Scoped: auto-trim over the whole machine would also end other files' piles (and `other`).
    const watch = startCli(['watch', '--json', '--session', agentSessionId('claude-code', piled.rootPid)], env);
    tracker.trackChild(watch.child);
    const events = collect(watch.child);
    const mine = (type: string) =>
      events.filter(
        (event) => event.type === type && String(event.sessionId).startsWith(`claude-code-${piled.rootPid}-`),
      );
    const [trimmed] = await pollUntil(() => (mine('alert-trimmed').length > 0 ? mine('alert-trimmed') : null), {
      deadlineMs: WATCH_WAIT_MS,
      description: 'alert-trimmed',
    });
    expect(trimmed?.kind).toBe('duplicate-servers');
    for (const pid of older) await pollUntil(() => !isRunning(pid), { description: `older set ${pid} gone` });
    expect(
      mine('alert-found')
        .map((event) => event.kind)
        .sort(),
    ).toEqual(['duplicate-servers', 'stale-subagents']);
    for (const pid of [
      piled.rootPid,
      ...newest,
      ...pidsOf(piled, 'subagent'),
      other.rootPid,
      ...mcpSetsOldestFirst(other).flat(),
    ])
      expect(isRunning(pid), `pid ${pid} ended`).toBe(true);
    expect(
      events.filter((event) => !String(event.sessionId ?? event.id).startsWith(`claude-code-${piled.rootPid}-`)),
    ).toEqual([]);
    watch.child.kill('SIGINT');
    expect((await watch.result).code).toBe(0);
  });
});
