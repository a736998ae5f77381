/**
 * The watcher finds new sessions from the processes forked since its last tick (new-pids.ts), so
 * a session started between two safety-net full scans is recognised by the next tick; an agent
 * that exec()s under a pid a tick already judged (a shell that execs the agent) is found by the
 * safety-net full scan. Real processes in the Kilo launcher's shape (`node …/node_modules/.bin/kilo`);
 * ticks are given their time (`tick(now)`), so which one is a full scan is the test's choice.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markerReaderFor } from '../../src/agents/observe/observe.js';
import { type AgentEvent, createAgentWatcher } from '../../src/agents/observe/watcher.js';
import { loadAgentRules } from '../../src/agents/rules/rules.js';
import { makeTempDir, pollUntil, useProcessTracker } from '../helpers/index.js';

const tracker = useProcessTracker();
/** Well inside the default safety-net interval: the ticks below are focused reads, never full ones. */
const TICK_MS = 1000;

function storeContext() {
  const stateRoot = makeTempDir();
  const { rules } = loadAgentRules(stateRoot);
  return { stateRoot, rules, readMarkers: markerReaderFor(rules), engineSocket: null };
}

/** This process's environment without any agent marker (the suite may run inside an agent's session). */
function unmarkedEnv(rules: ReturnType<typeof loadAgentRules>['rules']): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of rules.markersByName.keys()) delete env[name];
  return env;
}

/** The launcher script: it starts a child (a member the session's tree must show) and stays. */
function kiloLauncher(): string {
  const install = makeTempDir('tw-kilo-install-');
  mkdirSync(join(install, 'node_modules', '.bin'), { recursive: true });
  const launcher = join(install, 'node_modules', '.bin', 'kilo');
  writeFileSync(
    launcher,
    "require('node:child_process').spawn('sleep', ['120'], { stdio: 'ignore' });\nsetInterval(() => {}, 1000);\n",
  );
  return launcher;
}

function argvOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** The sessions of `pid` a tick announced (other people's agents live on this machine too). */
function startedFor(events: readonly AgentEvent[], pid: number): string[] {
  return events.flatMap((event) =>
    event.type === 'session-started' && event.session.root.pid === pid ? [event.session.id] : [],
  );
}

describe.skipIf(process.platform !== 'linux')('new sessions between safety-net full scans', () => {
  it('recognises a session whose agent root starts after the full scan by the next tick, with its child', async () => {
    const context = storeContext();
    const watcher = createAgentWatcher(context);
    const startedAt = Date.now();
    watcher.tick(startedAt); // The first tick: a full scan.
    const kilo = spawn(process.execPath, [kiloLauncher(), 'run', 'say hello'], {
      stdio: 'ignore',
      env: unmarkedEnv(context.rules),
    });
    tracker.trackChild(kilo);
    const pid = kilo.pid as number;
    const [child] = await pollUntil(
      () => {
        const found = childrenOf(pid);
        return found.length > 0 ? found : undefined;
      },
      { description: 'the launcher to start its child' },
    );
    tracker.trackPid(child as number);
    const tick = watcher.tick(startedAt + TICK_MS);
    expect(startedFor(tick.events, pid)).toHaveLength(1);
    const session = tick.observation.live.find((live) => live.root.pid === pid);
    expect(session?.agent).toBe('kilo');
    expect(session?.members.map((member) => member.entry.pid)).toContain(child);
    expect(watcher.liveRoots().map((root) => root.pid)).toContain(pid);
    // Announced once: the next focused tick follows it as a remembered session.
    expect(startedFor(watcher.tick(startedAt + 2 * TICK_MS).events, pid)).toEqual([]);
  });

  it('finds an agent that exec()s under a pid a tick already judged, by the safety-net full scan', async () => {
    const context = storeContext();
    const safetyNetMs = 5 * TICK_MS;
    const watcher = createAgentWatcher({ ...context, fullScanIntervalMs: safetyNetMs });
    const startedAt = Date.now();
    watcher.tick(startedAt);
    const go = join(makeTempDir(), 'go');
    const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
    // A shell (no agent by argv, no marker) that later becomes the agent's launcher, same pid.
    const shell = spawn(
      'sh',
      [
        '-c',
        `while [ ! -e ${quote(go)} ]; do sleep 0.05; done; exec ${quote(process.execPath)} ${quote(kiloLauncher())} run hi`,
      ],
      { stdio: 'ignore', env: unmarkedEnv(context.rules) },
    );
    tracker.trackChild(shell);
    const pid = shell.pid as number;
    await pollUntil(() => argvOf(pid)[0] === 'sh', { description: 'the shell to run' });
    // The tick that judges the new shell: no seed.
    expect(startedFor(watcher.tick(startedAt + TICK_MS).events, pid)).toEqual([]);
    writeFileSync(go, '');
    await pollUntil(() => argvOf(pid).some((arg) => arg.endsWith('/.bin/kilo')), {
      description: 'the shell to exec the launcher',
    });
    await pollUntil(() => childrenOf(pid).length > 0, { description: 'the launcher to start its child' });
    for (const child of childrenOf(pid)) tracker.trackPid(child);
    // No longer new, and not followed: focused ticks do not see it (barring a pid wrap between
    // them, which makes that tick a full read), the safety-net scan does.
    const focused = startedFor(watcher.tick(startedAt + 2 * TICK_MS).events, pid);
    const safety = startedFor(watcher.tick(startedAt + safetyNetMs + TICK_MS).events, pid);
    expect([...focused, ...safety]).toHaveLength(1);
    expect(watcher.liveRoots().map((root) => root.pid)).toContain(pid);
  });
});
