/**
 * Recognition of agents as npm installs and launches them (argv and markers as seen in /proc when
 * running the real packages here, AGENT-SHAPES.md section 3): `.bin` launchers, relaunched
 * children, a root carrying its own marker, Kilo's OPENCODE=1, and roles of marker-only finds.
 * Tables are injected (the agents' launches are replayed, not run: test:agents runs the real ones).
 */
import { describe, expect, it } from 'vitest';
import { observeTable } from '../../src/agents/observe/observe.js';
import type { MarkerReader } from '../../src/agents/read/environ.js';
import { rootAgentOf } from '../../src/agents/rules/match.js';
import { loadAgentRules } from '../../src/agents/rules/rules.js';
import { readSessions, writeSession } from '../../src/agents/sessions/session-store.js';
import { type FakeProcess, fakeEntry, fakeTable, makeTempDir } from '../helpers/index.js';

const { rules } = loadAgentRules(makeTempDir());
/** Pids far above this machine's live ones, so the observer's own checks never meet a real process. */
const BASE = 3_900_000;
const NM = '/home/u/proj/node_modules';
const SHELL = BASE;
const ROOT_START = 10_000;
const MEMBER_START = 11_000;
const NOW = 20_000;

function agentOf(args: string[]): string | null {
  return rootAgentOf(fakeEntry({ pid: 10, ppid: 1, pgid: 10, args }), rules)?.id ?? null;
}

function reader(env: Record<number, Record<string, string>>): MarkerReader {
  return (identity) => new Map(Object.entries(env[identity.pid] ?? {}));
}

function observe(state: string, processes: FakeProcess[], env: Record<number, Record<string, string>>) {
  const table = fakeTable(processes);
  const remembered = readSessions(state).sessions;
  return observeTable(
    { stateRoot: state, rules, readMarkers: reader(env), readListeningPids: () => new Set(), now: NOW },
    table,
    remembered,
    [],
    true,
    new Set(),
  );
}

describe('recognition of real launches', () => {
  it('knows each agent by the argv its npm launcher and binaries really have', () => {
    expect(agentOf(['node', `${NM}/.bin/codex`, 'exec', 'hi'])).toBe('codex');
    expect(agentOf([`${NM}/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex`, 'exec'])).toBe('codex');
    expect(agentOf(['node', `${NM}/.bin/gemini`, '-p', 'hi'])).toBe('gemini');
    expect(agentOf(['/usr/bin/node', '--max-old-space-size=12052', `${NM}/.bin/gemini`, '-p', 'hi'])).toBe('gemini');
    expect(agentOf(['node', `${NM}/.bin/qwen`, 'hi'])).toBe('qwen-code');
    expect(agentOf(['/usr/bin/node', '--expose-gc', `${NM}/@qwen-code/qwen-code/cli.js`, 'hi'])).toBe('qwen-code');
    expect(agentOf(['node', `${NM}/.bin/kilo`, 'run', 'hi'])).toBe('kilo');
    expect(agentOf([`${NM}/@kilocode/cli/bin/.kilo`, 'run', 'hi'])).toBe('kilo');
    expect(agentOf(['node', `${NM}/.bin/copilot`])).toBe('copilot');
    expect(agentOf([`${NM}/@github/copilot-linux-x64/copilot`])).toBe('copilot');
    expect(agentOf(['node', `${NM}/.bin/droid`, 'exec'])).toBe('droid');
    expect(agentOf(['node', `${NM}/.bin/auggie`])).toBe('auggie');
    expect(agentOf([`${NM}/.bin/opencode`, 'run', 'hi'])).toBe('opencode');
    expect(agentOf([`${NM}/.bin/claude`, '-p', 'hi'])).toBe('claude-code');
    // Options before the script are skipped, not taken for it; other scripts stay unknown.
    expect(agentOf(['node', '--inspect', '/srv/app/server.js'])).toBeNull();
    expect(agentOf(['node', '--max-old-space-size=100', '/srv/gemini-tools/index.js'])).toBeNull();
  });

  it("takes Codex's vendor binary, carrying CODEX_MANAGED_BY_NPM itself, as the agent under its launcher", () => {
    const state = makeTempDir();
    const processes: FakeProcess[] = [
      { pid: SHELL, ppid: 1, pgid: SHELL, args: ['bash'] },
      {
        pid: BASE + 1,
        ppid: SHELL,
        pgid: BASE + 1,
        args: ['node', `${NM}/.bin/codex`, 'exec'],
        startedAtMs: ROOT_START,
      },
      {
        pid: BASE + 2,
        ppid: BASE + 1,
        pgid: BASE + 1,
        args: [`${NM}/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex`, 'exec'],
        startedAtMs: MEMBER_START,
      },
      { pid: BASE + 3, ppid: BASE + 2, pgid: BASE + 1, args: ['sh', '-c', 'mcp-wrap'], startedAtMs: MEMBER_START },
    ];
    const env = { [BASE + 2]: { CODEX_MANAGED_BY_NPM: '1' }, [BASE + 3]: { CODEX_MANAGED_BY_NPM: '1' } };
    const seen = observe(state, processes, env);
    expect(seen.live.map((session) => [session.agent, session.root.pid])).toEqual([['codex', BASE + 1]]);
    const roles = new Map(seen.live[0]?.members.map((member) => [member.entry.pid, member.role]));
    expect(roles.get(BASE + 2)).toBe('agent');
    // The launcher gone (SIGTERM), the vendor binary alone is still the root of a session.
    const alone = observe(
      makeTempDir(),
      processes.slice(2).map((p) => (p.pid === BASE + 2 ? { ...p, ppid: 1 } : p)),
      env,
    );
    expect(alone.live.map((session) => [session.agent, session.root.pid])).toEqual([['codex', BASE + 2]]);
  });

  it("keeps Gemini's relaunched child as the live agent of the same session when its launcher dies", () => {
    const state = makeTempDir();
    const launcher: FakeProcess = {
      pid: BASE + 11,
      ppid: SHELL,
      pgid: BASE + 11,
      args: ['node', `${NM}/.bin/gemini`, '-p', 'hi'],
      startedAtMs: ROOT_START,
    };
    const child: FakeProcess = {
      pid: BASE + 12,
      ppid: BASE + 11,
      pgid: BASE + 11,
      args: ['/usr/bin/node', '--max-old-space-size=12052', `${NM}/.bin/gemini`, '-p', 'hi'],
      startedAtMs: MEMBER_START,
    };
    const server: FakeProcess = {
      pid: BASE + 13,
      ppid: BASE + 12,
      pgid: BASE + 11,
      args: ['node', '/srv/mcp-server.js'],
      startedAtMs: MEMBER_START,
    };
    const env: Record<number, Record<string, string>> = {
      [BASE + 12]: { GEMINI_CLI_NO_RELAUNCH: 'true' },
      [BASE + 13]: { GEMINI_CLI: '1' },
    };
    const shell: FakeProcess = { pid: SHELL, ppid: 1, pgid: SHELL, args: ['bash'] };
    const first = observe(state, [shell, launcher, child, server], env);
    expect(first.live).toHaveLength(1);
    const id = first.live[0]?.id;
    expect(first.live[0]?.members.find((member) => member.entry.pid === BASE + 12)?.role).toBe('agent');

    const after = observe(state, [shell, { ...child, ppid: 1 }, server], env);
    expect(after.leaks).toEqual([]);
    expect(after.live.map((session) => [session.id, session.root.pid])).toEqual([[id, BASE + 12]]);
    const record = after.sessions.find((session) => session.id === id);
    expect(record?.endedAtMs).toBeNull();
    expect(record?.root.pid).toBe(BASE + 12);
  });

  it("calls Kilo's orphan Kilo's (not opencode's) and gives a marker-only MCP server its role", () => {
    const state = makeTempDir();
    const processes: FakeProcess[] = [
      { pid: BASE + 21, ppid: 1, pgid: BASE + 21, args: ['npx', '-y', '@x/server-mcp'], startedAtMs: MEMBER_START },
      {
        pid: BASE + 22,
        ppid: BASE + 21,
        pgid: BASE + 21,
        args: ['node', '/cache/x/index.js'],
        startedAtMs: MEMBER_START,
      },
    ];
    const marks = { OPENCODE: '1', KILO: '1', KILO_PID: String(BASE + 20) };
    const seen = observe(state, processes, { [BASE + 21]: marks, [BASE + 22]: marks });
    expect(seen.leaks.map((leak) => leak.agent)).toEqual(['kilo']);
    expect(seen.leaks[0]?.processes.map((p) => [p.entry.pid, p.role])).toEqual([
      [BASE + 21, 'mcp-server'],
      [BASE + 22, 'mcp-server'],
    ]);
  });

  it("joins a hook's record (the hook ran under Gemini's relaunched child) and the recognised session into one, with members", () => {
    const state = makeTempDir();
    const shell: FakeProcess = { pid: SHELL, ppid: 1, pgid: SHELL, args: ['bash'] };
    const launcher: FakeProcess = {
      pid: BASE + 31,
      ppid: SHELL,
      pgid: BASE + 31,
      args: ['node', `${NM}/.bin/gemini`],
      startedAtMs: ROOT_START,
    };
    const child: FakeProcess = {
      pid: BASE + 32,
      ppid: BASE + 31,
      pgid: BASE + 31,
      args: ['node', '--max-old-space-size=100', `${NM}/.bin/gemini`],
      startedAtMs: MEMBER_START,
    };
    const server: FakeProcess = {
      pid: BASE + 33,
      ppid: BASE + 32,
      pgid: BASE + 31,
      args: ['node', '/srv/mcp-server.js'],
      startedAtMs: MEMBER_START,
    };
    const hookId = 'gemini-0f1e2d3c';
    writeSession(state, {
      version: 1,
      id: hookId,
      agent: 'gemini',
      root: { pid: BASE + 32, startTime: `st-${BASE + 32}`, args: [...(child.args ?? [])] },
      cwd: null,
      startedAtMs: MEMBER_START,
      lastSeenAtMs: MEMBER_START,
      endedAtMs: null,
      members: [],
      sessionKeys: [],
      hook: { sessionId: '0f1e2d3c', envKey: null, openedAtMs: MEMBER_START },
    });
    const seen = observe(state, [shell, launcher, child, server], { [BASE + 33]: { GEMINI_CLI: '1' } });
    expect(seen.sessions.map((session) => session.id)).toEqual([hookId]);
    expect(seen.sessions[0]?.members.map((member) => member.pid)).toEqual([BASE + 33]);
  });
});

describe('an agent run inside another agent (Kilo from a Copilot shell)', () => {
  // Kilo's children carry what Kilo inherited from Copilot's shell (COPILOT_*) beside its own
  // markers, in an order Bun shuffles: the Copilot markers come first here, as they did once.
  const inherited = { COPILOT_AGENT_SESSION_ID: '5d0c1e52-copilot', COPILOT_LOADER_PID: String(BASE + 40) };
  const kiloRoot = BASE + 42;
  const kiloServerEnv = { ...inherited, KILO: '1', KILO_PID: String(kiloRoot) };
  const server = (pid: number, ppid: number): FakeProcess => ({
    pid,
    ppid,
    pgid: pid,
    args: ['node', '/srv/mcp-server.js'],
    startedAtMs: MEMBER_START,
  });

  it("calls Kilo's orphaned server Kilo's, not Copilot's, on equal evidence (rule order, never the environment's)", () => {
    // Copilot and Kilo both gone; the server was left at pid 1 with two markers of each.
    const seen = observe(makeTempDir(), [server(BASE + 43, 1)], { [BASE + 43]: kiloServerEnv });
    expect(seen.leaks.map((leak) => leak.sessionId)).toEqual([`kilo-orphan-${BASE + 43}-st-${BASE + 43}`]);
  });

  it("never names the outer agent when the inner agent's root, carrying the outer's markers, is still there", () => {
    // Kilo's root (here no session of its own: it carries Kilo's marker, as a Kilo started by a
    // Kilo would) sits under Copilot's shell in a terminal; it carries Copilot's markers itself,
    // so Copilot is outside it.
    const processes: FakeProcess[] = [
      { pid: BASE + 45, ppid: 1, pgid: BASE + 45, args: ['tmux'], startedAtMs: ROOT_START },
      { pid: BASE + 41, ppid: BASE + 45, pgid: BASE + 41, args: ['bash'], startedAtMs: ROOT_START },
      {
        pid: kiloRoot,
        ppid: BASE + 41,
        pgid: kiloRoot,
        args: [`${NM}/@kilocode/cli/bin/.kilo`, 'run', 'hi'],
        startedAtMs: ROOT_START,
      },
      server(BASE + 44, 1),
    ];
    const env = {
      [BASE + 41]: inherited,
      [kiloRoot]: { ...inherited, KILO: '1' },
      // More Copilot evidence than Kilo's on the server: counts alone would call it Copilot's.
      [BASE + 44]: { ...inherited, KILO_PID: String(kiloRoot) },
    };
    const seen = observe(makeTempDir(), processes, env);
    expect(seen.live.map((session) => session.agent)).toEqual([]);
    expect(seen.leaks.map((leak) => leak.agent)).toEqual(['kilo']);
  });
});
