/**
 * Claude Code's background sessions, run for real: `claude --bg "…"` (Claude Code 2.1.328 from the
 * real-agents cache `npm run test:agents` fills, a fresh HOME, a trusted folder, no login, the
 * auto-updater off) starts its daemon and workers here offline. Observed as `sessions` and
 * `orphans` observe: the daemon and its workers are one family, each background session is its
 * own with its MCP server, a hook's record of a session is that session, the spares of a daemon
 * that exits on its own are never called leaked, and a SIGKILLed daemon's workers are its leak,
 * ended by `claude stop ID` first and the revalidated kill after. Skipped, with the reason, where
 * the cache has no Claude Code.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findHookAgent } from '../../src/agents/hooks/hook-ancestry.js';
import { openHookRecord } from '../../src/agents/hooks/hook-record.js';
import { stopWithAgent } from '../../src/agents/leaks/agent-stop.js';
import { cleanAgentLeaks } from '../../src/agents/leaks/clean-leaks.js';
import type { AgentLeak } from '../../src/agents/leaks/leak-judge.js';
import { markerReaderFor, observeAgentsOnce } from '../../src/agents/observe/observe.js';
import { loadAgentRules } from '../../src/agents/rules/rules.js';
import { readProcEntry, readProcTable } from '../../src/table/linux-proc.js';
import { makeTempDir, pollUntil, useProcessTracker } from '../helpers/index.js';

const CACHE = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'treewarden-agents');
const CLAUDE_BIN = join(CACHE, '@anthropic-ai+claude-code@2.1.328', 'node_modules', '.bin', 'claude');
const SKIP =
  process.platform !== 'linux'
    ? 'Linux only (reads /proc)'
    : existsSync(CLAUDE_BIN)
      ? null
      : `no Claude Code 2.1.328 in the real-agents cache (${CLAUDE_BIN}); run npm run test:agents once to fill it`;
/** Cold start of the 370 MB native binary, its daemon and an MCP server on a loaded 2-core machine. */
const START_DEADLINE_MS = 60_000;

const tracker = useProcessTracker();

interface World {
  readonly home: string;
  readonly project: string;
  readonly state: string;
  readonly env: NodeJS.ProcessEnv;
  readonly token: string;
}

function world(): World {
  const home = makeTempDir('tw-ccbg-home-');
  // Every process of this HOME is ended after the test, whichever daemon or worker started it.
  tracker.trackEnvMarker('HOME', home);
  const project = join(home, 'project');
  mkdirSync(project);
  const state = makeTempDir('tw-ccbg-state-');
  const token = `tw-ccbg-mcp-${home.split('-').pop()}`;
  // A trusted folder (no dialog) and one stdio MCP server whose argv carries this run's token.
  writeFileSync(
    join(home, '.claude.json'),
    JSON.stringify({
      projects: { [project]: { hasTrustDialogAccepted: true } },
      mcpServers: {
        leaky: {
          type: 'stdio',
          command: process.execPath,
          args: ['-e', 'process.stdin.resume(); setInterval(() => {}, 1000)', token],
        },
      },
    }),
  );
  const env = {
    PATH: `${dirname(CLAUDE_BIN)}:${process.env.PATH ?? ''}`,
    HOME: home,
    // Its auto-updater would install a newer release globally (it did, once, as root here).
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    TERM: 'dumb',
  };
  return { home, project, state, env, token };
}

async function runClaude(w: World, args: readonly string[]): Promise<string> {
  const child = spawn(CLAUDE_BIN, [...args], { cwd: w.project, env: w.env, stdio: ['ignore', 'pipe', 'pipe'] });
  tracker.trackChild(child);
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`claude ${args.join(' ')} exited ${code}: ${out}`);
  return out;
}

/** `claude --bg "…"`: the short id it prints (`backgrounded · 2501aa56`). */
async function startBackground(w: World, prompt: string): Promise<string> {
  const out = await runClaude(w, ['--bg', prompt]);
  const id = /backgrounded · ([0-9a-f]+)/.exec(out)?.[1];
  if (id === undefined) throw new Error(`claude --bg printed no id: ${out}`);
  return id;
}

function observe(w: World) {
  const { rules } = loadAgentRules(w.state);
  return observeAgentsOnce({ stateRoot: w.state, rules, readMarkers: markerReaderFor(rules) });
}

function isServer(w: World, args: readonly string[]): boolean {
  return args.includes(w.token);
}

function hasHome(pid: number, home: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`HOME=${home}`);
  } catch {
    return false;
  }
}

/**
 * The leaks that concern this test's daemon: its sessions' ids, or a process of its HOME (other
 * tests on this machine run agents of their own, which this observer sees too).
 */
function leaksOf(w: World, leaks: readonly AgentLeak[], sessions: readonly { readonly id: string }[]): AgentLeak[] {
  const ids = new Set(sessions.map((session) => session.id));
  return leaks.filter((leak) => ids.has(leak.sessionId) || leak.processes.some((p) => hasHome(p.entry.pid, w.home)));
}

/** Every live process of this HOME (the daemon's family and its sessions' servers). */
function familyPids(w: World): number[] {
  return [...readProcTable().entries.values()]
    .filter((entry) => entry.state !== 'Z' && hasHome(entry.pid, w.home))
    .map((entry) => entry.pid);
}

/** Two background sessions with their MCP servers, as `sessions` sees them once both are up. */
async function twoSessions(w: World) {
  await startBackground(w, 'say hello');
  await startBackground(w, 'say bye');
  return pollUntil(
    () => {
      const seen = observe(w);
      const background = seen.live.filter((s) => s.family?.kind === 'background');
      const withServer = background.filter((s) => s.members.some((m) => isServer(w, m.entry.args)));
      return withServer.length === 2 ? seen : null;
    },
    {
      description: 'two background sessions, each with its MCP server',
      deadlineMs: START_DEADLINE_MS,
      intervalMs: 500,
    },
  );
}

describe.skipIf(SKIP !== null)(`Claude Code --bg, the real binary${SKIP === null ? '' : ` (skipped: ${SKIP})`}`, () => {
  it('one family for the daemon and its workers, one session per background session (a hook record joins its own), no leak', async () => {
    const w = world();
    const seen = await twoSessions(w);
    const daemons = seen.live.filter((s) => s.family?.kind === 'daemon');
    expect(daemons).toHaveLength(1);
    const daemon = daemons[0];
    expect(daemon?.root.args.slice(1, 3)).toEqual(['daemon', 'run']);
    expect(daemon?.root.ppid).toBe(1);
    // Its members are its workers (pty hosts, spares), the agent's own processes.
    expect(daemon?.members.length).toBeGreaterThan(0);
    expect(daemon?.members.every((m) => m.role === 'agent' && /^claude bg-/.test(m.entry.args[0] ?? ''))).toBe(true);
    const background = seen.live.filter((s) => s.family?.kind === 'background');
    expect(background.map((s) => s.family?.daemon.pid)).toEqual([daemon?.root.pid, daemon?.root.pid]);
    expect(new Set(background.map((s) => s.id)).size).toBe(2);
    for (const session of background) {
      expect(session.members.filter((m) => isServer(w, m.entry.args)).map((m) => m.role)).toEqual(['mcp-server']);
      expect(session.sessionKeys.some((key) => key.startsWith('claude-code:session:'))).toBe(true);
    }
    expect(leaksOf(w, seen.leaks, seen.live)).toEqual([]);

    // The SessionStart hook would run under the session's process: the agent it records is the
    // worker running the session, never the daemon, and its record is that session (one, with members).
    const session = background[0];
    const server = session?.members.find((m) => isServer(w, m.entry.args));
    if (session === undefined || server === undefined) throw new Error('no session with a server');
    const ancestry = findHookAgent('claude-code', loadAgentRules(w.state).rules, server.entry.pid);
    expect(ancestry.agent?.pid).toBe(session.root.pid);
    const sessionId = session.sessionKeys
      .find((key) => key.startsWith('claude-code:session:'))
      ?.slice('claude-code:session:'.length) as string;
    const hookRoot = readProcEntry(session.root.pid);
    if (hookRoot === null) throw new Error('the session root is gone');
    openHookRecord(w.state, {
      agent: { name: 'claude', ruleId: 'claude-code', envKey: 'CLAUDE_CODE_SESSION_ID' },
      sessionId,
      root: hookRoot,
      cwd: w.project,
      now: Date.now(),
    });
    const after = observe(w);
    const ours = after.sessions.filter((s) => s.family?.daemon.pid === daemon?.root.pid);
    expect(ours.filter((s) => s.endedAtMs === null)).toHaveLength(3);
    const hooked = after.sessions.find((s) => s.id === `claude-code-${sessionId}`);
    expect(hooked?.family?.kind).toBe('background');
    expect(hooked?.members.some((m) => isServer(w, m.args))).toBe(true);
    expect(leaksOf(w, after.leaks, ours)).toEqual([]);
  }, 120_000);

  it('a daemon that exits on its own: its lingering spares are never reported as leaked', async () => {
    const w = world();
    const id = await startBackground(w, 'say hello');
    const seen = await pollUntil(
      () => {
        const found = observe(w);
        const up = found.live.some(
          (s) => s.family?.kind === 'background' && s.members.some((m) => isServer(w, m.entry.args)),
        );
        return up ? found : null;
      },
      { description: 'the background session and its server', deadlineMs: START_DEADLINE_MS, intervalMs: 500 },
    );
    const family = seen.live.filter((s) => s.family !== undefined && hasHome(s.family.daemon.pid, w.home));
    await runClaude(w, ['stop', id]);
    // The daemon exits 5 s after its last session, its spare pty host ~5 s after it: watch it all go.
    const reported: string[] = [];
    await pollUntil(
      () => {
        const found = observe(w);
        const leaks = leaksOf(w, found.leaks, family);
        reported.push(...leaks.map((leak) => `${leak.sessionId}: ${leak.processes.map((p) => p.entry.pid)}`));
        return familyPids(w).length === 0;
      },
      { description: 'the daemon and its workers to exit on their own', deadlineMs: 40_000, intervalMs: 300 },
    );
    expect(reported).toEqual([]);
  }, 120_000);

  it("a SIGKILLed daemon's workers are its leak; claude stop ends the sessions first, the revalidated kill the rest", async () => {
    const w = world();
    const seen = await twoSessions(w);
    const daemon = seen.live.find((s) => s.family?.kind === 'daemon');
    if (daemon === undefined) throw new Error('no daemon');
    process.kill(daemon.root.pid, 'SIGKILL');
    await pollUntil(() => readProcEntry(daemon.root.pid)?.state === 'Z' || readProcEntry(daemon.root.pid) === null, {
      description: 'the daemon to die',
    });
    // What the daemon left, read before the observation (a session may still start a short-lived
    // child afterwards, which the observation could not have seen).
    const before = familyPids(w);
    const after = observe(w);
    const orphaned = before.filter((pid) => {
      const entry = readProcEntry(pid);
      return entry !== null && entry.state !== 'Z';
    });
    expect(orphaned.length).toBeGreaterThan(3);
    const family = seen.live.filter((s) => s.family?.daemon.pid === daemon.root.pid);
    expect(after.live.filter((s) => family.some((f) => f.root.pid === s.root.pid))).toEqual([]);
    const leaks = leaksOf(w, after.leaks, family);
    expect(leaks.map((leak) => leak.sessionId)).toEqual([daemon.id]);
    const leak = leaks[0];
    if (leak === undefined) throw new Error('no leak');
    expect(leak.root?.pid).toBe(daemon.root.pid);
    // Every worker, session process and MCP server the daemon left is in it.
    const leaked = new Set(leak.processes.map((p) => p.entry.pid));
    expect(orphaned.filter((pid) => !leaked.has(pid))).toEqual([]);
    const backgroundRoots = seen.live.filter((s) => s.family?.kind === 'background').map((s) => s.root.pid);
    expect(leak.processes.filter((p) => backgroundRoots.includes(p.entry.pid)).map((p) => p.role)).toEqual([
      'agent',
      'agent',
    ]);

    const { rules } = loadAgentRules(w.state);
    const [cleaned] = await cleanAgentLeaks([leak], {
      ledgerFile: join(w.state, 'ledger.jsonl'),
      stopFirst: (found) => stopWithAgent(found, rules, { env: w.env }),
    });
    expect(cleaned?.agentStops?.map((stop) => [stop.command.slice(1).join(' '), stop.result])).toHaveLength(2);
    expect(cleaned?.agentStops?.every((stop) => stop.result === 'ok')).toBe(true);
    expect(cleaned?.survivors).toEqual([]);
    // Some were ended by the agent's own stop, the pty hosts and spares (which it leaves) by the kill.
    expect(cleaned?.processes.some((p) => p.detail?.startsWith("ended by the agent's own"))).toBe(true);
    expect(cleaned?.processes.some((p) => p.result === 'killed')).toBe(true);
    await pollUntil(() => familyPids(w).length === 0, { description: 'nothing of the family left' });
  }, 120_000);

  it("a new daemon adopts a SIGKILLed daemon's session: its family again, no leak while it runs", async () => {
    const w = world();
    await startBackground(w, 'say hello');
    const first = await pollUntil(
      () => {
        const found = observe(w);
        const up = found.live.some(
          (s) => s.family?.kind === 'background' && s.members.some((m) => isServer(w, m.entry.args)),
        );
        return up ? found : null;
      },
      { description: 'the background session and its server', deadlineMs: START_DEADLINE_MS, intervalMs: 500 },
    );
    const daemon = first.live.find((s) => s.family?.kind === 'daemon' && hasHome(s.root.pid, w.home));
    const session = first.live.find((s) => s.family?.kind === 'background' && s.family.daemon.pid === daemon?.root.pid);
    if (daemon === undefined || session === undefined) throw new Error('no daemon or session');
    process.kill(daemon.root.pid, 'SIGKILL');
    await pollUntil(() => readProcEntry(daemon.root.pid)?.state === 'Z' || readProcEntry(daemon.root.pid) === null, {
      description: 'the daemon to die',
    });
    expect(leaksOf(w, observe(w).leaks, [daemon]).map((leak) => leak.sessionId)).toEqual([daemon.id]);
    // `claude --bg` again: the new daemon adopts the orphaned session (its log: "bg adopt: adopted=1").
    await startBackground(w, 'say again');
    const adopted = await pollUntil(
      () => {
        const found = observe(w);
        const again = found.live.find((s) => s.id === session.id);
        return again !== undefined && again.family?.daemon.pid !== daemon.root.pid ? found : null;
      },
      { description: 'the new daemon to adopt the session', deadlineMs: START_DEADLINE_MS, intervalMs: 500 },
    );
    expect(leaksOf(w, adopted.leaks, [daemon, session])).toEqual([]);
    expect(adopted.sessions.find((s) => s.id === session.id)?.endedAtMs).toBeNull();
  }, 120_000);
});
