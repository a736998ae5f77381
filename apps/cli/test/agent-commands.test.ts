/**
 * `treewarden sessions` and `orphans` with agent sessions, through the built CLI, on real process
 * trees of fake agents installed like the real ones. A session is recognised live with its roles;
 * after its root dies (SIGKILL, SIGHUP of a closed terminal, normal exit) every survivor is
 * reported with reasons, and `orphans --clean` leaves none alive, while a second live session, a
 * marker-less daemon reparented to pid 1 and another user's marked process are never reported
 * or signalled.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  cleanAgentLeaks,
  loadAgentRules,
  markerReaderFor,
  type ObserveContext,
  observeAgentsOnce,
  readProcTable,
  resolveStateDir,
} from '@treewarden/engine';
import { type AgentLeakGroup, agentLeakGroupSchema, agentSessionsReportSchema } from '@treewarden/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, startCli } from '../../../test-support/cli-helpers.js';
import { type FakeAgent, pidOf, startFakeAgent } from '../../../test-support/fake-agents.js';
import {
  agentSessionId,
  fixturePath,
  isRunning,
  MAX_LIFETIME_ENV,
  pollUntil,
  privateHome,
  readReportedPids,
  spawnFixture,
  TEST_FIXTURE_LIFETIME_MS,
  useProcessTracker,
} from '../../../test-support/index.js';

/** Bound on waiting for a dead session's survivors to be reported (CLI start-up under load included). */
const LEAK_REPORT_WAIT_MS = 25_000;
const NOBODY_UID = 65534;
const IS_ROOT = typeof process.getuid === 'function' && process.getuid() === 0;

const tracker = useProcessTracker();

beforeAll(() => assertBuilt());

async function sessionsJson() {
  const result = await runCli(['sessions', '--json']);
  expect(result.code, result.stderr).toBe(0);
  return agentSessionsReportSchema.parse(JSON.parse(result.stdout));
}

async function agentGroups(): Promise<AgentLeakGroup[]> {
  const result = await runCli(['orphans', '--json']);
  expect(result.code, result.stderr).toBe(0);
  const body = JSON.parse(result.stdout) as { groups: { kind: string }[] };
  return body.groups.filter((group) => group.kind === 'agent').map((group) => agentLeakGroupSchema.parse(group));
}

function reportedPids(groups: readonly AgentLeakGroup[]): Set<number> {
  return new Set(groups.flatMap((group) => group.processes.map((process) => process.pid)));
}

/** Waits until every pid in `expected` is reported in some agent group; returns the groups. */
async function waitForLeaks(expected: readonly number[]): Promise<AgentLeakGroup[]> {
  return pollUntil(
    async () => {
      const groups = await agentGroups();
      const pids = reportedPids(groups);
      return expected.every((pid) => pids.has(pid)) ? groups : null;
    },
    { deadlineMs: LEAK_REPORT_WAIT_MS, description: `leaks ${expected.join(' ')} to be reported` },
  );
}

async function waitForDeath(pid: number): Promise<void> {
  await pollUntil(() => !isRunning(pid), { description: `pid ${pid} to die` });
}

/** A marked process of another user, double-forked to pid 1 (the leak check must never touch it). */
async function startOtherUsersLeak(): Promise<number> {
  const token = `tw-other-user-${randomUUID()}`;
  const child = spawn(
    'setsid',
    [
      '-f',
      'setpriv',
      `--reuid=${NOBODY_UID}`,
      `--regid=${NOBODY_UID}`,
      '--clear-groups',
      process.execPath,
      fixturePath('agents/fake-mcp-server.mjs'),
      token,
    ],
    {
      stdio: 'ignore',
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        CLAUDECODE: '1',
        [MAX_LIFETIME_ENV]: String(TEST_FIXTURE_LIFETIME_MS),
      },
    },
  );
  tracker.trackChild(child);
  const pid = await pollUntil(
    // Only the exec'd node as nobody: the short-lived `setsid` parent carries the token too.
    () =>
      [...readProcTable().entries.values()].find(
        (entry) => entry.uid === NOBODY_UID && entry.args[0] === process.execPath && entry.args.includes(token),
      )?.pid,
    { description: "the other user's process" },
  );
  tracker.trackPid(pid);
  return pid;
}

/** A marker-less daemon reparented to pid 1 by a setsid double fork. */
async function startMarkerlessDaemon(): Promise<number> {
  const outer = spawnFixture(tracker, 'double-fork.mjs');
  const [middle] = await readReportedPids(tracker, outer.reportFile, 1, { role: 'middle' });
  const daemon = middle?.daemon;
  if (typeof daemon !== 'number') throw new Error('double-fork did not report its daemon');
  await pollUntil(() => readProcTable().entries.get(daemon)?.ppid !== middle?.pid, {
    description: 'the daemon to be reparented',
  });
  return daemon;
}

/** The context the CLI builds, for steps a test must scope to its own processes. */
function agentTestContext(): ObserveContext {
  const stateRoot = resolveStateDir();
  const { rules } = loadAgentRules(stateRoot);
  return { stateRoot, rules, readMarkers: markerReaderFor(rules) };
}

function survivorsOf(agent: FakeAgent): number[] {
  return agent.pids.filter((pid) => pid !== agent.rootPid);
}

describe.skipIf(process.platform !== 'linux')('agent sessions through the CLI', () => {
  it('recognises a live Claude-like session with members and roles; after SIGKILL reports and cleans only its survivors', async () => {
    const doomed = await startFakeAgent(tracker, 'claude');
    const bystander = await startFakeAgent(tracker, 'claude');
    const daemon = await startMarkerlessDaemon();
    // Only root can start a process as another user; elsewhere that part of the check is skipped.
    const otherUser = IS_ROOT ? [await startOtherUsersLeak()] : [];

    const live = await sessionsJson();
    const session = live.sessions.find((candidate) => candidate.root.pid === doomed.rootPid);
    expect(session?.agent).toBe('claude-code');
    expect(session?.state).toBe('live');
    const roleOf = (pid: number) => session?.members.find((member) => member.pid === pid)?.role;
    expect(roleOf(pidOf(doomed, 'npx-wrapper'))).toBe('mcp-server');
    expect(roleOf(pidOf(doomed, 'mcp-server'))).toBe('mcp-server');
    expect(roleOf(pidOf(doomed, 'dev-server'))).toBe('dev-server');
    expect(roleOf(pidOf(doomed, 'subagent'))).toBe('subagent');
    expect(session?.members.filter((member) => member.role === 'shell')).toHaveLength(2);
    expect(
      live.sessions.some((candidate) => candidate.root.pid === bystander.rootPid && candidate.state === 'live'),
    ).toBe(true);

    process.kill(doomed.rootPid, 'SIGKILL');
    const groups = await waitForLeaks(survivorsOf(doomed));
    const group = groups.find((candidate) => candidate.sessionId === session?.id);
    expect(group?.agent).toBe('claude-code');
    expect(group?.processes.map((process) => process.pid).sort()).toEqual(survivorsOf(doomed).sort());
    for (const process of group?.processes ?? [])
      expect(process.reasons.join('; ')).toMatch(/remembered as .* is gone/);
    const reported = reportedPids(groups);
    const devServer = group?.processes.find((process) => process.pid === pidOf(doomed, 'dev-server'));
    expect(devServer?.role).toBe('dev-server');
    expect(devServer?.reasons).toContain('no controlling terminal');
    for (const pid of [...bystander.pids, daemon, ...otherUser]) expect(reported.has(pid)).toBe(false);

    const ended = await sessionsJson();
    const endedRow = ended.sessions.find((candidate) => candidate.id === session?.id);
    expect(endedRow?.state).toBe('ended');
    expect([...(endedRow?.leaked ?? [])].sort()).toEqual(survivorsOf(doomed).sort());

    // Scoped to this session: other files' leaks on this shared machine are theirs to end.
    const clean = await runCli(['orphans', '--clean', '--json', '--grace', '1', '--session', session?.id as string]);
    expect(clean.code, clean.stderr).toBe(0);
    for (const pid of survivorsOf(doomed)) expect(isRunning(pid), `${pid} ${clean.stdout}`).toBe(false);
    for (const pid of [...bystander.pids, daemon, ...otherUser])
      expect(isRunning(pid), `${pid} ${clean.stdout}`).toBe(true);
  });

  it("keeps a Codex-like session's marker-less MCP servers by remembered ancestry after a normal exit", async () => {
    const codex = await startFakeAgent(tracker, 'codex');
    const live = await sessionsJson();
    const session = live.sessions.find((candidate) => candidate.root.pid === codex.rootPid);
    expect(session?.agent).toBe('codex');
    expect(session?.members.map((member) => member.role)).toEqual(['mcp-server', 'mcp-server']);

    process.kill(codex.rootPid, 'SIGUSR2');
    await waitForDeath(codex.rootPid);
    const groups = await waitForLeaks(survivorsOf(codex));
    const group = groups.find((candidate) => candidate.sessionId === session?.id);
    expect(group?.processes.map((process) => process.role)).toEqual(['mcp-server', 'mcp-server']);
    for (const process of group?.processes ?? []) expect(process.reasons).toContain('reparented to pid 1');

    const clean = await runCli(['orphans', '--clean', '--grace', '1', '--session', session?.id as string]);
    expect(clean.code, clean.stderr).toBe(0);
    for (const pid of survivorsOf(codex)) expect(isRunning(pid), `${pid} ${clean.stdout}`).toBe(false);
  });

  it('finds a tree leaked before any observer ran (SIGHUP of a closed terminal) from markers alone; --clean needs --all for it', async () => {
    const claude = await startFakeAgent(tracker, 'claude');
    process.kill(claude.rootPid, 'SIGHUP');
    await waitForDeath(claude.rootPid);
    const groups = await waitForLeaks(survivorsOf(claude));
    const ours = groups.filter((candidate) => candidate.processes.some((p) => claude.pids.includes(p.pid)));
    expect(ours.length).toBeGreaterThan(0);
    for (const group of ours) {
      expect(group.sessionId).toMatch(/^claude-code-orphan-/);
      expect(group.root).toBeNull();
      expect(group.processes[0]?.reasons.join('; ')).toMatch(/CLAUDECODE=1/);
    }
    // Weaker evidence than a remembered session: plain --clean reports them and signals nothing.
    // Scoped to these groups: other files' remembered leaks on this shared machine are theirs to end.
    const scope = ours.flatMap((group) => ['--session', group.sessionId]);
    const clean = await runCli(['orphans', '--clean', '--grace', '1', ...scope]);
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stdout).toMatch(/not cleaned: found from markers alone; add --all/);
    for (const pid of survivorsOf(claude)) expect(isRunning(pid)).toBe(true);
    // `--all` would also end other suites' unregistered runs on this shared machine: end ours through the engine.
    const leaks = observeAgentsOnce(agentTestContext()).leaks.filter((leak) =>
      leak.processes.some(({ entry }) => claude.pids.includes(entry.pid)),
    );
    const cleaned = await cleanAgentLeaks(leaks, { graceMs: 1000 });
    expect(cleaned.flatMap((entry) => entry.survivors)).toEqual([]);
    for (const pid of survivorsOf(claude)) expect(isRunning(pid)).toBe(false);
  });

  it('prints a systemd --user unit that runs the watcher', async () => {
    const result = await runCli(['watch', '--print-unit']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ExecStart=".*" ".*main\.js" "watch"$/m);
  });
});

describe.skipIf(process.platform !== 'linux')('treewarden watch', () => {
  it('prints session-started, session-ended, leak-found and (with --auto-clean 0) leak-cleaned of its --session only, one JSON per line', async () => {
    const claude = await startFakeAgent(tracker, 'claude');
    const bystander = await startFakeAgent(tracker, 'claude');
    const id = agentSessionId('claude-code', claude.rootPid);
    // A private store: the watcher's first scan remembers the session (session-started) itself.
    const watch = startCli(['watch', '--json', '--auto-clean', '0', '--session', id], privateHome());
    tracker.trackChild(watch.child);
    const events: { type: string; [key: string]: unknown }[] = [];
    let buffered = '';
    watch.child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') events.push(JSON.parse(line));
    });
    const started = await pollUntil(
      () =>
        events.find(
          (event) => event.type === 'session-started' && (event.root as { pid: number }).pid === claude.rootPid,
        ),
      { deadlineMs: LEAK_REPORT_WAIT_MS, description: 'session-started' },
    );
    expect(started.id).toBe(id);
    process.kill(claude.rootPid, 'SIGKILL');
    process.kill(bystander.rootPid, 'SIGKILL');
    const ofSession = (type: string) =>
      events.filter((event) => event.type === type && (event.id ?? event.sessionId) === started.id);
    await pollUntil(() => ofSession('leak-cleaned').length > 0, {
      deadlineMs: LEAK_REPORT_WAIT_MS,
      description: 'leak-cleaned',
    });
    expect(ofSession('session-ended')).toHaveLength(1);
    const found = ofSession('leak-found').flatMap((event) => event.newPids as number[]);
    expect(found.sort()).toEqual(survivorsOf(claude).sort());
    const cleaned = ofSession('leak-cleaned').flatMap((event) => event.processes as { pid: number; result: string }[]);
    for (const process of cleaned) expect(process.result).toMatch(/^(killed|already_gone)$/);
    for (const pid of survivorsOf(claude)) expect(isRunning(pid)).toBe(false);
    // Outside the scope: the other session's leak was neither told nor ended (the tracker ends it).
    expect(events.filter((event) => (event.id ?? event.sessionId) !== id)).toEqual([]);
    for (const pid of survivorsOf(bystander)) expect(isRunning(pid), `bystander ${pid}`).toBe(true);
    watch.child.kill('SIGINT');
    expect((await watch.result).code).toBe(0);
  });

  it('refuses a --session that is not a session id, before observing anything', async () => {
    for (const command of ['watch', 'orphans']) {
      const result = await runCli([command, '--session', '../x y']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--session "\.\.\/x y" is not a session id/);
    }
  });

  it('refuses a negative --auto-clean before observing anything', async () => {
    const result = await runCli(['watch', '--auto-clean=-5']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--auto-clean -5 is outside/);
  });
});
