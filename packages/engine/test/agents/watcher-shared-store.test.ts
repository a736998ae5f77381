/**
 * A watcher shares its state dir with the CLI: when `sessions` (or `orphans`) remembers a session
 * first, the store already knows it on the watcher's next full scan. The watcher must still say it
 * follows it (session-started), as it would have had it seen the session first. Shape as seen with
 * the real Kilo 7.7.7 run through its npm launcher: `node …/node_modules/.bin/kilo run "say hello"`.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAUDE_STUB } from '../../../../test-support/fake-agents.js';
import { markerReaderFor, observeAgentsOnce } from '../../src/agents/observe/observe.js';
import { type AgentEvent, createAgentWatcher } from '../../src/agents/observe/watcher.js';
import { loadAgentRules } from '../../src/agents/rules/rules.js';
import { readStatFields } from '../../src/table/linux-stat.js';
import { makeTempDir, pollUntil, useProcessTracker } from '../helpers/index.js';

const tracker = useProcessTracker();

function storeContext() {
  const stateRoot = makeTempDir();
  const { rules } = loadAgentRules(stateRoot);
  return { stateRoot, rules, readMarkers: markerReaderFor(rules) };
}

/**
 * The sessions of `pid` a tick announced: other tests' and other people's agents live on the same
 * machine, and a watcher's first tick rightly announces every live one.
 */
function startedFor(events: readonly AgentEvent[], pid: number): string[] {
  return events.flatMap((event) =>
    event.type === 'session-started' && event.session.root.pid === pid ? [event.session.id] : [],
  );
}

/** The launcher's shape; `seenByCli` is `treewarden sessions` remembering it in the shared store. */
function startKilo(context: ReturnType<typeof storeContext>) {
  const install = makeTempDir('tw-kilo-install-');
  const launcher = join(install, 'node_modules', '.bin', 'kilo');
  mkdirSync(join(install, 'node_modules', '.bin'), { recursive: true });
  writeFileSync(launcher, 'setInterval(() => {}, 1000);\n');
  const kilo = spawn(process.execPath, [launcher, 'run', 'say hello'], { stdio: 'ignore' });
  tracker.trackChild(kilo);
  const pid = kilo.pid as number;
  const seenByCli = () =>
    pollUntil(() => observeAgentsOnce(context).live.find((session) => session.root.pid === pid), {
      description: 'the CLI to recognise the Kilo launcher',
    });
  return { pid, seenByCli };
}

describe('a watcher sharing its store with the CLI', () => {
  it('announces a live session another observer remembered first, once', async () => {
    const context = storeContext();
    const watcher = createAgentWatcher({ ...context, fullScanIntervalMs: 0 });
    watcher.tick();
    const { pid, seenByCli } = startKilo(context);
    const cli = await seenByCli();
    expect(cli.agent).toBe('kilo');
    expect(startedFor(watcher.tick().events, pid)).toEqual([cli.id]);
    expect(startedFor(watcher.tick().events, pid)).toEqual([]);
    expect(watcher.liveRoots().map((root) => root.pid)).toContain(pid);
  });

  it('announces it on its first tick when the CLI remembered it before the watcher started', async () => {
    const context = storeContext();
    const { pid, seenByCli } = startKilo(context);
    const cli = await seenByCli();
    const watcher = createAgentWatcher({ ...context, fullScanIntervalMs: 0 });
    expect(startedFor(watcher.tick().events, pid)).toEqual([cli.id]);
    expect(startedFor(watcher.tick().events, pid)).toEqual([]);
    expect(watcher.liveRoots().map((root) => root.pid)).toContain(pid);
  });

  it('does not call a server orphaned before it saw it under the live root a leak; once the root exits, the session leaked it', async () => {
    // As the real Claude Code 2.1.328 `-p` run showed under CI's load: the watcher followed the
    // session before its MCP server started, `treewarden sessions` then stored the server as a
    // member, and on SIGTERM the agent killed the server's wrapper (which forwards nothing) before
    // exiting, all between two ticks. The orphan carries the session's id, which the watcher never
    // learnt: while the root lives that is no leak, and after, the CLI's record makes it the session's.
    const context = storeContext();
    const watcher = createAgentWatcher(context);
    watcher.tick();
    const claude = startClaudeWithServerOnSignal();
    await pollUntil(() => startedFor(watcher.tick().events, claude.pid).length === 1, {
      description: 'the watcher to follow the Claude root before its server starts',
    });
    await claude.ready();
    process.kill(claude.pid, 'SIGUSR2');
    const { wrapper, server } = await claude.started();
    await pollUntil(
      () =>
        observeAgentsOnce(context).live.some(
          (session) => session.root.pid === claude.pid && session.members.some((m) => m.entry.pid === server),
        ),
      { description: 'the CLI to store the server as a member of the session' },
    );
    process.kill(wrapper, 'SIGKILL');
    await pollUntil(() => readStatFields(server)?.ppid !== wrapper, { description: 'the server to be reparented' });
    const leaksOf = (events: readonly AgentEvent[]) =>
      events.flatMap((event) =>
        event.type === 'leak-found' && event.leak.processes.some((p) => p.entry.pid === server) ? [event.leak] : [],
      );
    expect(leaksOf(watcher.tick().events)).toEqual([]);
    process.kill(claude.pid, 'SIGTERM');
    // Ticks until one reports it (the first may come before the root has handled its SIGTERM).
    const leak = await pollUntil(() => leaksOf(watcher.tick().events).at(0), {
      description: 'the watcher to report the server once the root exited',
    });
    expect(leak.root?.pid).toBe(claude.pid);
  });
});

/**
 * A Claude root by argv (npm's install path) that, on SIGUSR2, starts an MCP server behind a
 * wrapper with the session's markers, as Claude Code passes them, and writes both pids.
 */
function startClaudeWithServerOnSignal() {
  const dir = makeTempDir('tw-claude-');
  const cli = join(dir, CLAUDE_STUB);
  mkdirSync(join(cli, '..'), { recursive: true });
  const pids = join(dir, 'pids');
  writeFileSync(
    cli,
    `const { spawn } = require('node:child_process');
const { writeFileSync } = require('node:fs');
process.on('SIGUSR2', () => {
  const wrapper = spawn('/bin/sh', ['-c', '"$0" -e "setInterval(() => {}, 1000)" tw-test-mcp-server & echo $!; wait', process.execPath], {
    env: { ...process.env, CLAUDECODE: '1', CLAUDE_CODE_SESSION_ID: 'sess-orphaned-early' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  wrapper.stdout.once('data', (line) => writeFileSync(${JSON.stringify(pids)}, wrapper.pid + ' ' + String(line).trim()));
});
writeFileSync(${JSON.stringify(pids)}, 'ready');
setInterval(() => {}, 1000);
`,
  );
  const child = spawn(process.execPath, [cli], { cwd: dir, stdio: 'ignore' });
  const pid = tracker.trackChild(child);
  // The signal's handler is in place (before, SIGUSR2 would end the root).
  const ready = () => pollUntil(() => readFileSync(pids, 'utf8') === 'ready', { description: 'the root to be ready' });
  const started = async () => {
    const [wrapper, server] = await pollUntil(
      () => {
        const both = readFileSync(pids, 'utf8').split(' ').map(Number);
        return both.length === 2 && both.every((n) => n > 0) ? (both as [number, number]) : null;
      },
      { description: 'the wrapper and server pids' },
    );
    tracker.trackPid(wrapper);
    tracker.trackPid(server);
    return { wrapper, server };
  };
  return { pid, ready, started };
}
