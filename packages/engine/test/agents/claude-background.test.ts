/**
 * Claude Code's `--bg` daemon family, replayed: the argv, environment, ppid and sessions exactly as
 * Claude Code 2.1.328 showed them here (claude-background-real.test.ts runs the real binary where
 * the real-agents cache has it; this file runs everywhere). Covers what timing makes hard to hit
 * with the real one: a daemon's linger running out, a hook record written by an older Treewarden
 * under the daemon, and the agent's own stop failing or hanging.
 */
import { describe, expect, it } from 'vitest';
import { pickHookAgent } from '../../src/agents/hooks/hook-ancestry.js';
import { stopIdsOf, stopWithAgent } from '../../src/agents/leaks/agent-stop.js';
import { observeTable } from '../../src/agents/observe/observe.js';
import type { MarkerReader } from '../../src/agents/read/environ.js';
import { loadAgentRules } from '../../src/agents/rules/rules.js';
import { readSessions, writeSession } from '../../src/agents/sessions/session-store.js';
import { type FakeProcess, fakeEntry, fakeTable, makeTempDir } from '../helpers/index.js';

const { rules } = loadAgentRules(makeTempDir());
const BASE = 3_950_000;
const EXE = '/home/u/.npm-global/lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe';
const SOCKS = '/tmp/cc-daemon-1000/79c8c3a4';
const JOBS = '/home/u/.claude/jobs';
/** In this boot's past: a dead session's record is acted on only with a window a real one could have had. */
const T0 = Date.now() - 120_000;
const DAEMON = BASE + 1;
const U1 = '2501aa56-65f5-4117-a958-a9ce30636540';
const U2 = '0a644548-6b09-483d-aa07-8a39679dd0f2';

const WORKER_ENV = {
  AI_AGENT: 'claude-code_2-1-328_harness',
  CLAUDE_CODE_SESSION_KIND: 'bg',
  CLAUDE_BG_BACKEND: 'daemon',
};
const serverEnv = (uuid: string) => ({
  AI_AGENT: 'claude-code_2-1-328_harness',
  CLAUDECODE: '1',
  CLAUDE_CODE_SESSION_ID: uuid,
  CLAUDE_JOB_DIR: `${JOBS}/${uuid.slice(0, 8)}`,
});

function proc(pid: number, ppid: number, args: string[], startedAtMs = T0 + 1000): FakeProcess {
  return { pid, ppid, pgid: pid, args, startedAtMs };
}

/** The daemon, an idle spare, a fresh session (pty host → claude.exe --session-id) and a claimed spare, each session with an MCP server. */
const FAMILY: FakeProcess[] = [
  proc(DAEMON, 1, [EXE, 'daemon', 'run', '--origin', 'transient', '--spawned-by', '{"label":"claude --bg"}'], T0),
  // An idle spare: pty host and the spare it runs.
  proc(BASE + 2, DAEMON, [
    'claude bg-pty-host',
    '--bg-pty-host',
    `${SOCKS}/spare/dea2d70d.pty.sock`,
    '200',
    '50',
    '--',
    EXE,
    '--bg-spare',
    `${SOCKS}/spare/dea2d70d.claim.sock`,
  ]),
  proc(BASE + 3, BASE + 2, ['claude bg-spare', '--bg-spare', `${SOCKS}/spare/dea2d70d.claim.sock`]),
  // A fresh session: its pty host, the session process, its MCP server.
  proc(BASE + 4, DAEMON, [
    'claude bg-pty-host',
    '--bg-pty-host',
    `${SOCKS}/pty/2501aa56.sock`,
    '200',
    '50',
    '--',
    EXE,
    '--session-id',
    U1,
    'say hello',
  ]),
  proc(BASE + 5, BASE + 4, [EXE, '--session-id', U1, 'say hello']),
  proc(BASE + 6, BASE + 5, ['node', '/srv/mcp-server.js']),
  // A claimed spare: same argv and environment as an idle one; its MCP server names the session.
  proc(BASE + 7, DAEMON, [
    'claude bg-pty-host',
    '--bg-pty-host',
    `${SOCKS}/spare/7ea4fada.pty.sock`,
    '200',
    '50',
    '--',
    EXE,
    '--bg-spare',
    `${SOCKS}/spare/7ea4fada.claim.sock`,
  ]),
  proc(BASE + 8, BASE + 7, ['claude bg-spare', '--bg-spare', `${SOCKS}/spare/7ea4fada.claim.sock`]),
  proc(BASE + 9, BASE + 8, ['node', '/srv/mcp-server.js']),
];

const ENV: Record<number, Record<string, string>> = {
  [DAEMON]: { AI_AGENT: 'claude-code_2-1-328_harness' },
  [BASE + 2]: WORKER_ENV,
  [BASE + 3]: WORKER_ENV,
  [BASE + 4]: { ...WORKER_ENV, CLAUDE_JOB_DIR: `${JOBS}/2501aa56` },
  [BASE + 5]: { ...WORKER_ENV, CLAUDE_JOB_DIR: `${JOBS}/2501aa56` },
  [BASE + 6]: serverEnv(U1),
  [BASE + 7]: WORKER_ENV,
  [BASE + 8]: WORKER_ENV,
  [BASE + 9]: serverEnv(U2),
};

const reader: MarkerReader = (identity) => new Map(Object.entries(ENV[identity.pid] ?? {}));

function observe(state: string, processes: readonly FakeProcess[], now: number) {
  return observeTable(
    { stateRoot: state, rules, readMarkers: reader, readListeningPids: () => new Set(), now },
    fakeTable(processes),
    readSessions(state).sessions,
    [],
    true,
    new Set(),
  );
}

const without = (pids: readonly number[]) => FAMILY.filter((p) => !pids.includes(p.pid));

describe('Claude Code --bg: the daemon family and its background sessions', () => {
  it('one family for the daemon and its workers, one session per background session, nothing leaked', () => {
    const seen = observe(makeTempDir(), FAMILY, T0 + 2000);
    const shape = seen.live.map((s) => [
      s.family?.kind ?? null,
      s.root.pid,
      s.members.map((m) => [m.entry.pid, m.role]),
    ]);
    expect(shape).toEqual(
      expect.arrayContaining([
        ['background', BASE + 5, [[BASE + 6, 'mcp-server']]],
        ['background', BASE + 8, [[BASE + 9, 'mcp-server']]],
      ]),
    );
    const daemon = seen.live.find((s) => s.family?.kind === 'daemon');
    expect(daemon?.root.pid).toBe(DAEMON);
    expect(new Map(daemon?.members.map((m) => [m.entry.pid, m.role]))).toEqual(
      new Map([
        [BASE + 2, 'agent'],
        [BASE + 3, 'agent'],
        [BASE + 4, 'agent'],
        [BASE + 7, 'agent'],
      ]),
    );
    expect(seen.live).toHaveLength(3);
    expect(seen.leaks).toEqual([]);
  });

  it('a hook runs under the worker running its session, and a record an older Treewarden rooted at the daemon joins it', () => {
    const table = fakeTable([...FAMILY, proc(BASE + 10, BASE + 8, ['/bin/sh', '-c', 'treewarden hook claude'])]);
    const chain = [BASE + 10, BASE + 8, BASE + 7, DAEMON].map(
      (pid) => table.entries.get(pid) ?? fakeEntry(proc(pid, 1, [])),
    );
    expect(pickHookAgent('claude-code', rules, chain).agent?.pid).toBe(BASE + 8);

    const state = makeTempDir();
    const hookId = `claude-code-${U2}`;
    writeSession(state, {
      version: 1,
      id: hookId,
      agent: 'claude-code',
      root: { pid: DAEMON, startTime: `st-${DAEMON}`, args: [EXE, 'daemon', 'run'] },
      cwd: null,
      startedAtMs: T0,
      lastSeenAtMs: T0,
      endedAtMs: null,
      members: [],
      sessionKeys: [`claude-code:session:${U2}`],
      hook: { sessionId: U2, envKey: 'CLAUDE_CODE_SESSION_ID', openedAtMs: T0 },
    });
    const seen = observe(state, FAMILY, T0 + 2000);
    const record = seen.sessions.find((s) => s.id === hookId);
    expect(record?.root.pid).toBe(BASE + 8);
    expect(record?.family?.kind).toBe('background');
    expect(record?.members.map((m) => m.pid)).toEqual([BASE + 9]);
    expect(seen.sessions.filter((s) => s.endedAtMs === null)).toHaveLength(3);
  });

  it("a daemon that exited on its own: its spare's pty host is the daemon's until the linger runs out", () => {
    const state = makeTempDir();
    observe(state, FAMILY, T0 + 2000);
    // Both sessions stopped (their processes gone), then the daemon exited; the spare's pty host lingers.
    observe(state, without([BASE + 4, BASE + 5, BASE + 6, BASE + 7, BASE + 8, BASE + 9]), T0 + 3000);
    const lingering = [{ ...(FAMILY[1] as FakeProcess), ppid: 1 }];
    expect(observe(state, lingering, T0 + 9000).leaks).toEqual([]);
    expect(observe(state, lingering, T0 + 14_000).leaks).toEqual([]);
    // Past the rule's linger (10 s after the daemon was seen gone) it is a leak of the daemon.
    const late = observe(state, lingering, T0 + 19_500).leaks;
    expect(late.map((leak) => [leak.sessionId, leak.processes.map((p) => p.entry.pid)])).toEqual([
      [`claude-code-${DAEMON}-st-${DAEMON}`, [BASE + 2]],
    ]);
  });

  it("a daemon killed with sessions running: at once, every worker and session process is the daemon's leak", () => {
    const state = makeTempDir();
    observe(state, FAMILY, T0 + 2000);
    const orphaned = without([DAEMON]).map((p) => (p.ppid === DAEMON ? { ...p, ppid: 1 } : p));
    const seen = observe(state, orphaned, T0 + 2500);
    expect(seen.live).toEqual([]);
    expect(seen.leaks.map((leak) => leak.sessionId)).toEqual([`claude-code-${DAEMON}-st-${DAEMON}`]);
    const roles = new Map(seen.leaks[0]?.processes.map((p) => [p.entry.pid, p.role]));
    expect([...roles.keys()].sort()).toEqual(orphaned.map((p) => p.pid).sort());
    expect(roles.get(BASE + 5)).toBe('agent');
    expect(roles.get(BASE + 8)).toBe('agent');
    expect(roles.get(BASE + 9)).toBe('mcp-server');
    // The background sessions are over with their daemon, though their processes still run.
    const background = seen.sessions.filter((s) => s.family?.kind === 'background');
    expect(background.map((s) => s.endedAtMs)).toEqual([T0 + 2500, T0 + 2500]);
  });

  it("a new daemon adopts a killed daemon's session: its family again, live again, never a leak", () => {
    const state = makeTempDir();
    observe(state, FAMILY, T0 + 2000);
    const orphaned = without([DAEMON]).map((p) => (p.ppid === DAEMON ? { ...p, ppid: 1 } : p));
    expect(observe(state, orphaned, T0 + 2500).leaks).toHaveLength(1);
    // `claude --bg` again: a new daemon (same socket directory) adopts the session workers.
    const NEW = BASE + 20;
    const adopter = [
      proc(NEW, 1, [EXE, 'daemon', 'run', '--origin', 'transient', '--spawned-by', '{}'], T0 + 3000),
      proc(
        BASE + 21,
        NEW,
        [
          'claude bg-pty-host',
          '--bg-pty-host',
          `${SOCKS}/spare/51850873.pty.sock`,
          '200',
          '50',
          '--',
          EXE,
          '--bg-spare',
          `${SOCKS}/spare/51850873.claim.sock`,
        ],
        T0 + 3000,
      ),
    ];
    const seen = observe(state, [...orphaned, ...adopter], T0 + 4000);
    expect(seen.leaks).toEqual([]);
    const background = seen.live.filter((s) => s.family?.kind === 'background');
    expect(background.map((s) => [s.root.pid, s.family?.daemon.pid])).toEqual(
      expect.arrayContaining([
        [BASE + 5, NEW],
        [BASE + 8, NEW],
      ]),
    );
    const records = seen.sessions.filter((s) => s.family?.kind === 'background');
    expect(records.map((s) => [s.endedAtMs, s.family?.daemon.pid])).toEqual([
      [null, NEW],
      [null, NEW],
    ]);
    // Another user's daemon directory is another family: its orphans are not adopted.
    const stranger = orphaned.map((p) => ({ ...p, args: p.args?.map((a) => a.replace('79c8c3a4', 'ffff0000')) }));
    expect(
      observe(makeTempDir(), [...stranger, ...adopter], T0 + 4000).live.filter((s) => s.family?.kind === 'background'),
    ).toEqual([]);
  });

  it('a worker orphaned before anything saw its daemon runs no live session (a marker-only find)', () => {
    const orphaned = without([DAEMON]).map((p) => (p.ppid === DAEMON ? { ...p, ppid: 1 } : p));
    const seen = observe(makeTempDir(), orphaned, T0 + 2500);
    expect(seen.live).toEqual([]);
    expect(seen.leaks.every((leak) => leak.root === null && leak.agent === 'claude-code')).toBe(true);
    expect(seen.leaks.flatMap((leak) => leak.processes.map((p) => p.entry.pid)).sort()).toEqual(
      orphaned.map((p) => p.pid).sort(),
    );
  });
});

describe("the agent's own stop", () => {
  const leakOf = (pids: readonly number[]) => ({
    sessionId: 'claude-code-1-1',
    agent: 'claude-code',
    root: { pid: DAEMON, startTime: 'x' },
    why: 'test',
    processes: pids.map((pid) => ({
      entry: fakeEntry(FAMILY.find((p) => p.pid === pid) as FakeProcess),
      role: 'agent' as const,
      reasons: [],
    })),
  });
  const stop = rules.agents.find((rule) => rule.id === 'claude-code')?.daemon?.stop;
  const readVars = (identity: { pid: number }) => new Map(Object.entries(ENV[identity.pid] ?? {}));

  it('takes ids only from the leaked processes: a pty socket in argv, CLAUDE_JOB_DIR in the environment', () => {
    if (stop === undefined) throw new Error('claude-code has no stop rule');
    expect(stopIdsOf(leakOf([BASE + 4, BASE + 5, BASE + 9]), stop, readVars)).toEqual(['2501aa56', '0a644548']);
    // An idle spare names no session: nothing to ask the agent to stop.
    expect(stopIdsOf(leakOf([BASE + 2, BASE + 3]), stop, readVars)).toEqual([]);
  });

  it('reports a missing binary, a failure and a timeout, so the revalidated kill still does the work', async () => {
    const leak = leakOf([BASE + 4]);
    expect(await stopWithAgent(leak, rules, { path: makeTempDir() })).toEqual([
      { command: ['claude'], result: 'no-binary', detail: 'claude is not on PATH' },
    ]);
    const bin = makeTempDir();
    const { writeFileSync, chmodSync } = await import('node:fs');
    writeFileSync(`${bin}/claude`, '#!/bin/sh\nexit 0\n');
    chmodSync(`${bin}/claude`, 0o755);
    const calls: string[][] = [];
    const timedOut = await stopWithAgent(leak, rules, {
      path: bin,
      run: async (binary, args) => {
        calls.push([binary, ...args]);
        return { code: null, timedOut: true, output: '' };
      },
    });
    expect(calls).toEqual([[`${bin}/claude`, 'stop', '2501aa56']]);
    expect(timedOut.map((report) => report.result)).toEqual(['timeout']);
    const failed = await stopWithAgent(leak, rules, {
      path: bin,
      run: async () => ({ code: 1, timedOut: false, output: 'no such session' }),
    });
    expect(failed).toEqual([
      { command: [`${bin}/claude`, 'stop', '2501aa56'], result: 'failed', detail: 'no such session' },
    ]);
  });
});
