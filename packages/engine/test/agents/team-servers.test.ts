/**
 * Agent teams with a real tmux: a fake Claude lead (the npm install's argv shape) starts its team's
 * tmux server as Claude Code does (`-S …/claude-swarm-<lead pid>`, detached, so the server is
 * reparented away from the session's tree) with a teammate (`claude --agent-id r1@team`) in its
 * pane. While the lead lives, the server and the teammate are the session's members (roles
 * `tmux-server`, `teammate`); a tmux server on another socket is not. After the lead dies, the
 * server and its teammate are leftovers, unless a client is attached (someone watches the team).
 * Servers run on private sockets in a temp dir and are ended by recorded pid.
 *
 * The teammate's pane is a shell that execs `env CLAUDECODE=1 claude --agent-id …` (as Claude Code
 * starts teammates): the pid and start time stay, the program and environment change. The pane
 * here waits for a `go` file before it execs, and the test observes once meanwhile, so the
 * shell's environment (no CLAUDECODE) is read first. A marker cache keyed on the identity alone
 * kept that for good: the teammate then looked like a person's claude, a session of its own, and
 * never the lead's member (what made this test time out in loaded suites: an observation that
 * happened to read the pane between fork and the last exec).
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markerReaderFor, observeAgentsOnce } from '../../src/agents/observe/observe.js';
import { loadAgentRules } from '../../src/agents/rules/rules.js';
import { recogniseSessions } from '../../src/agents/sessions/recognise.js';
import {
  CREATOR_WINDOW_MS,
  markedServerSession,
  swarmLeadPid,
  teamServerEvidence,
  tmuxSocketOf,
} from '../../src/agents/sessions/team-servers.js';
import { readProcTable } from '../../src/table/linux-proc.js';
import { identityKey, type ProcessEntry } from '../../src/table/types.js';
import { fakeTable } from '../helpers/fake-world.js';
import { isRunning, makeTempDir, pollUntil, useProcessTracker } from '../helpers/index.js';

const tracker = useProcessTracker();
const TEST_MS = 60_000;
const MARKER = 'TW_TEAM_TEST';

/** The lead starts its team server and stays; started with --agent-id it is the teammate and just stays. */
const LEAD = `
const { execFileSync } = require('node:child_process');
const path = require('node:path');
setTimeout(() => process.exit(0), 600000);
setInterval(() => {}, 1 << 30);
if (!process.argv.includes('--agent-id')) {
  const socket = path.join(process.env.TW_TEAM_DIR, 'claude-swarm-' + process.pid);
  const go = path.join(process.env.TW_TEAM_DIR, 'go');
  const teammate = 'while [ ! -e ' + go + ' ]; do sleep 0.05; done; exec env CLAUDECODE=1 ' + process.execPath + ' ' + __filename + ' --agent-id r1@team --team-name team';
  execFileSync('tmux', ['-S', socket, 'new-session', '-d', '-s', 'swarm', '-x', '80', '-y', '24', teammate]);
}
`;

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  // The lead must look like a person's claude, not one an agent started.
  for (const name of Object.keys(env)) if (/^(CLAUDECODE|CLAUDE_CODE_|AI_AGENT|TMUX)/.test(name)) delete env[name];
  return env;
}

/** What an observation saw of the lead's session and any session a test process is root of (for failures). */
function describeSessions(observation: ReturnType<typeof observeAgentsOnce>, leadPid: number): string {
  const lines = observation.live
    .filter((s) => s.root.pid === leadPid || s.root.args.some((a) => a.includes('--agent-id')))
    .map(
      (s) =>
        `session ${s.id} root ${s.root.pid} [${s.root.args.join(' ')}]: ` +
        s.members.map((m) => `${m.entry.pid} ${m.role} via ${m.via} [${m.entry.args.join(' ')}]`).join(', '),
    );
  return lines.length === 0 ? 'no session of the lead' : lines.join('; ');
}

function serverOn(socket: string) {
  return [...readProcTable().entries.values()].find(
    (entry) => entry.command === 'tmux: server' && tmuxSocketOf(entry.args) === `S:${socket}`,
  );
}

describe('agent team tmux servers', () => {
  it('are members while the lead lives, leftovers after, and not while a client is attached', {
    timeout: TEST_MS,
  }, async () => {
    const dir = makeTempDir('tw-team-');
    const stateRoot = makeTempDir('tw-team-state-');
    const marker = randomUUID();
    tracker.trackEnvMarker(MARKER, marker);
    const cli = join(dir, 'node_modules/@anthropic-ai/claude-code/cli.js');
    mkdirSync(join(cli, '..'), { recursive: true });
    writeFileSync(cli, LEAD);
    const env = cleanEnv({ TW_TEAM_DIR: dir, [MARKER]: marker });
    const lead = spawn(process.execPath, [cli], { cwd: dir, detached: true, stdio: 'ignore', env });
    const leadPid = tracker.trackChild(lead, { detached: true });
    const swarm = join(dir, `claude-swarm-${leadPid}`);
    // Another tmux server of the same user, started by no session: never the session's.
    const stranger = join(dir, 'work');
    execFileSync('tmux', ['-S', stranger, 'new-session', '-d', '-s', 'work', 'sleep 600'], { env });
    const server = await pollUntil(() => serverOn(swarm) ?? null, { description: 'the team tmux server' });
    const strangerServer = serverOn(stranger);
    tracker.trackPid(server.pid);
    if (strangerServer !== undefined) tracker.trackPid(strangerServer.pid);
    expect(server.ppid).not.toBe(leadPid);

    const rules = loadAgentRules(stateRoot);
    const context = { stateRoot, rules: rules.rules, readMarkers: markerReaderFor(rules.rules) };
    // The pane's shell, waiting to exec the teammate: observed once now, its environment is read.
    const pane = await pollUntil(() => [...readProcTable().entries.values()].find((e) => e.ppid === server.pid), {
      description: "the team server's pane shell",
    });
    tracker.trackPid(pane.pid);
    const before = observeAgentsOnce(context);
    expect(describeSessions(before, leadPid)).toContain('tmux-server');
    writeFileSync(join(dir, 'go'), '');
    let last = before;
    const live = await pollUntil(
      () => {
        last = observeAgentsOnce(context);
        const session = last.live.find((s) => s.root.pid === leadPid);
        return session?.members.some((m) => m.role === 'teammate') ? session : null;
      },
      { description: 'the lead session with its teammate' },
    ).catch((error: Error) => {
      throw new Error(`${error.message}; the pane ${pane.pid}; last seen: ${describeSessions(last, leadPid)}`);
    });
    const roles = new Map(live.members.map((m) => [m.entry.pid, m.role]));
    expect(roles.get(server.pid)).toBe('tmux-server');
    expect(live.members.find((m) => m.role === 'teammate')?.entry.args).toContain('--agent-id');
    expect(strangerServer === undefined || !roles.has(strangerServer.pid)).toBe(true);
    const teammate = live.members.find((m) => m.role === 'teammate')?.entry.pid as number;

    process.kill(leadPid, 'SIGKILL');
    await pollUntil(() => !isRunning(leadPid), { description: 'the lead to die' });

    // Someone attached to the team's server: it and its panes are not leftovers.
    const client = spawn('script', ['-qfc', `tmux -S ${swarm} attach`, '/dev/null'], {
      stdio: ['pipe', 'ignore', 'ignore'],
      env,
    });
    tracker.trackChild(client);
    await pollUntil(
      () =>
        [...readProcTable().entries.values()].some(
          (e) => e.command === 'tmux: client' && tmuxSocketOf(e.args) === `S:${swarm}`,
        ),
      { description: 'a client attached to the team server' },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const watched = observeAgentsOnce(context).leaks.filter((leak) => leak.root?.pid === leadPid);
    expect(watched.flatMap((leak) => leak.processes.map((p) => p.entry.pid))).toEqual([]);

    client.kill('SIGKILL');
    const leaked = await pollUntil(
      () => {
        const pids = observeAgentsOnce(context)
          .leaks.filter((leak) => leak.root?.pid === leadPid)
          .flatMap((leak) => leak.processes.map((p) => [p.entry.pid, p.role, p.reasons.join('; ')] as const));
        return pids.length > 0 ? pids : null;
      },
      { description: 'the team server as a leftover once nobody is attached' },
    );
    const byPid = new Map(leaked.map(([pid, role, why]) => [pid, { role, why }]));
    expect(byPid.get(server.pid)?.role).toBe('tmux-server');
    expect(byPid.get(server.pid)?.why).toContain('no client attached');
    expect(byPid.get(teammate)?.role).toBe('teammate');
    expect(strangerServer === undefined || !byPid.has(strangerServer.pid)).toBe(true);
  });
});

/** The lead's shell tool runs `tmux new -d` with the agent's marker and exits at once, as does the client. */
const SHELL_LEAD = `
const { execFileSync } = require('node:child_process');
setTimeout(() => process.exit(0), 600000);
setInterval(() => {}, 1 << 30);
execFileSync('sh', ['-c', 'tmux -S "$0" new-session -d -s work "sleep 600"', process.env.TW_SHELL_SOCKET], {
  env: { ...process.env, CLAUDECODE: '1' },
});
`;

describe("a tmux server a session's shell started and left", () => {
  it('is the session’s while it lives and its leftover after, a person’s own tmux in that directory never', {
    timeout: TEST_MS,
  }, async () => {
    const dir = makeTempDir('tw-shell-tmux-');
    const stateRoot = makeTempDir('tw-shell-tmux-state-');
    const marker = randomUUID();
    tracker.trackEnvMarker(MARKER, marker);
    const cli = join(dir, 'node_modules/@anthropic-ai/claude-code/cli.js');
    mkdirSync(join(cli, '..'), { recursive: true });
    writeFileSync(cli, SHELL_LEAD);
    const socket = join(dir, 'agent-tmux');
    const env = cleanEnv({ TW_SHELL_SOCKET: socket, [MARKER]: marker });
    const lead = spawn(process.execPath, [cli], { cwd: dir, detached: true, stdio: 'ignore', env });
    const leadPid = tracker.trackChild(lead, { detached: true });
    // The person's own tmux, in the same directory, from a terminal no agent started.
    const mine = join(dir, 'mine');
    execFileSync('tmux', ['-S', mine, 'new-session', '-d', '-s', 'mine', 'sleep 600'], { cwd: dir, env });
    const server = await pollUntil(() => serverOn(socket) ?? null, { description: "the shell's tmux server" });
    tracker.trackPid(server.pid);
    const myServer = serverOn(mine);
    if (myServer !== undefined) tracker.trackPid(myServer.pid);
    // The shell and the tmux client are gone before anything observes: only the server is left.
    await pollUntil(() => ![...readProcTable().entries.values()].some((e) => e.ppid === leadPid && e.state !== 'Z'), {
      description: "the lead's shell and tmux client to exit",
    });
    expect(server.ppid).not.toBe(leadPid);

    const rules = loadAgentRules(stateRoot);
    const context = { stateRoot, rules: rules.rules, readMarkers: markerReaderFor(rules.rules) };
    let last = observeAgentsOnce(context);
    const live = await pollUntil(
      () => {
        last = observeAgentsOnce(context);
        const session = last.live.find((s) => s.root.pid === leadPid);
        return session?.members.some((m) => m.entry.pid === server.pid) ? session : null;
      },
      { description: "the lead's session with the shell's tmux server" },
    ).catch((error: Error) => {
      throw new Error(`${error.message}; last seen: ${describeSessions(last, leadPid)}`);
    });
    const roles = new Map(live.members.map((m) => [m.entry.pid, m.role]));
    expect(roles.get(server.pid)).toBe('tmux-server');
    expect(live.members.some((m) => m.entry.args.join(' ') === 'sleep 600' && m.via === 'team')).toBe(true);
    expect(myServer === undefined || !roles.has(myServer.pid)).toBe(true);

    process.kill(leadPid, 'SIGKILL');
    await pollUntil(() => !isRunning(leadPid), { description: 'the lead to die' });
    const leaked = await pollUntil(
      () => {
        const found = observeAgentsOnce(context)
          .leaks.filter((leak) => leak.root?.pid === leadPid)
          .flatMap((leak) => leak.processes.map((p) => [p.entry.pid, p.role, p.reasons.join('; ')] as const));
        return found.length > 0 ? found : null;
      },
      { description: "the shell's tmux server as a leftover" },
    );
    const byPid = new Map(leaked.map(([pid, role, why]) => [pid, { role, why }]));
    expect(byPid.get(server.pid)?.role).toBe('tmux-server');
    expect(byPid.get(server.pid)?.why).toContain('no client attached');
    expect(myServer === undefined || !byPid.has(myServer.pid)).toBe(true);
  });
});

describe('team server evidence (pure)', () => {
  const entry = (pid: number, command: string, args: string[], startedAtMs: number) =>
    ({ pid, command, args, startedAtMs }) as unknown as Parameters<typeof teamServerEvidence>[0];

  it('reads the socket from the argv the server kept from its client', () => {
    expect(tmuxSocketOf(['tmux', '-L', 'claude-swarm-42', 'new-session', '-d'])).toBe('L:claude-swarm-42');
    expect(tmuxSocketOf(['tmux', '-Lclaude-swarm-42', 'attach'])).toBe('L:claude-swarm-42');
    expect(tmuxSocketOf(['tmux', '-f', '/x.conf', '-S', '/tmp/s/claude-swarm-7', 'ls'])).toBe(
      'S:/tmp/s/claude-swarm-7',
    );
    expect(tmuxSocketOf(['tmux', 'new', '-s', 'work', '-L', 'late'])).toBe('L:default');
    expect(swarmLeadPid('S:/tmp/s/claude-swarm-7')).toBe(7);
    expect(swarmLeadPid('L:claude-swarm-x')).toBeNull();
  });

  it("names the lead's session only when the server started after the lead (a recycled pid is not the lead)", () => {
    const lead = entry(42, 'claude', ['claude'], 10_000);
    const server = entry(50, 'tmux: server', ['tmux', '-L', 'claude-swarm-42', 'new-session', '-d'], 12_000);
    expect(teamServerEvidence(server, [lead], [])).toContain('named after the session');
    const older = entry(51, 'tmux: server', ['tmux', '-L', 'claude-swarm-42', 'new-session', '-d'], 9_000);
    expect(teamServerEvidence(older, [lead], [])).toBeNull();
  });

  it("names the one session whose agent's markers, time and directory the server kept, else none", () => {
    const at = (pid: number, command: string, args: string[], startedAtMs: number, cwd: string) =>
      ({ pid, command, args, startedAtMs, cwd }) as unknown as Parameters<typeof teamServerEvidence>[0];
    const claude = { agent: 'claude-code', name: 'CLAUDECODE', value: '1', on: 'started' } as const;
    const a = { agent: 'claude-code', root: at(10, 'node', ['claude'], 1_000, '/p/a') };
    const b = { agent: 'claude-code', root: at(20, 'node', ['claude'], 2_000, '/p/b') };
    const codex = { agent: 'codex', root: at(30, 'codex', ['codex'], 1_000, '/p/a') };
    const server = (startedAtMs: number, cwd: string) =>
      at(50, 'tmux: server', ['tmux', 'new', '-d'], startedAtMs, cwd);
    expect(markedServerSession(server(5_000, '/p/a/src'), [claude], [a, b, codex])?.session).toBe(a);
    expect(markedServerSession(server(5_000, '/p/a/src'), [claude], [a, b, codex])?.why).toContain('CLAUDECODE=1');
    // No agent marker (a person's tmux), another agent's, or a marker naming a session: not this tie.
    expect(markedServerSession(server(5_000, '/p/a'), [], [a])).toBeNull();
    expect(markedServerSession(server(5_000, '/p/b'), [{ ...claude, agent: 'codex' }], [b])).toBeNull();
    const named = { ...claude, name: 'CLAUDE_CODE_SESSION_ID', value: 'x', names: 'session' } as const;
    expect(markedServerSession(server(5_000, '/p/a'), [claude, named], [a])).toBeNull();
    // Started before the session, outside its directory (`/p/ab` is not under `/p/a`), or two fitting: none.
    expect(markedServerSession(server(500, '/p/a'), [claude], [a])).toBeNull();
    expect(markedServerSession(server(5_000, '/p/ab'), [claude], [a])).toBeNull();
    const a2 = { agent: 'claude-code', root: at(11, 'node', ['claude'], 1_500, '/p/a') };
    expect(markedServerSession(server(5_000, '/p/a'), [claude], [a, a2])).toBeNull();
  });

  it('takes such a server into a live session unless an ended session remembers it as its own', () => {
    const { rules } = loadAgentRules(makeTempDir('tw-team-rules-'));
    const stub = '/p/a/node_modules/@anthropic-ai/claude-code/cli.js';
    const table = fakeTable([
      { pid: 4100, ppid: 1, pgid: 4100, command: 'node', args: ['node', stub], cwd: '/p/a', startedAtMs: 1_000 },
      {
        pid: 4200,
        ppid: 1,
        pgid: 4200,
        command: 'tmux: server',
        args: ['tmux', 'new', '-d'],
        cwd: '/p/a',
        startedAtMs: 5_000,
      },
      { pid: 4201, ppid: 4200, pgid: 4201, command: 'sleep', args: ['sleep', '600'], cwd: '/p/a', startedAtMs: 5_001 },
    ]);
    const env: Record<number, Record<string, string>> = { 4200: { CLAUDECODE: '1' }, 4201: { CLAUDECODE: '1' } };
    const readMarkers = (identity: { pid: number }) => new Map(Object.entries(env[identity.pid] ?? {}));
    const membersOf = (rememberedMembers?: ReadonlyMap<string, string>) =>
      recogniseSessions({ table, rules, readMarkers, ...(rememberedMembers ? { rememberedMembers } : {}) })
        .find((session) => session.root.pid === 4100)
        ?.members.map((m) => [m.entry.pid, m.role, m.via]);
    expect(membersOf()).toEqual([
      [4200, 'tmux-server', 'team'],
      [4201, 'other', 'team'],
    ]);
    const server = table.entries.get(4200) as ProcessEntry;
    const lead = table.entries.get(4100) as ProcessEntry;
    expect(membersOf(new Map([[identityKey(server), identityKey(lead)]]))).toHaveLength(2);
    expect(membersOf(new Map([[identityKey(server), '3900:st-3900']]))).toEqual([]);
  });

  it('names the session whose member client created the server, and not a later server on that socket', () => {
    const client = entry(60, 'tmux: client', ['tmux', '-S', '/tmp/t/work', 'new'], 20_000);
    const created = entry(61, 'tmux: server', ['tmux', '-S', '/tmp/t/work', 'new'], 20_100);
    const later = entry(62, 'tmux: server', ['tmux', '-S', '/tmp/t/work', 'new'], 20_000 + CREATOR_WINDOW_MS + 1);
    expect(teamServerEvidence(created, [], [client])).toContain('created by member tmux client 60');
    expect(teamServerEvidence(later, [], [client])).toBeNull();
  });
});
