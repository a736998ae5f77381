/**
 * The tick right after an agent exits reports all of its leftovers. Shape as seen with the real
 * Codex 0.169.0 run through its npm launcher under `treewarden watch` (tools/agents/suite.mjs):
 * `node …/node_modules/.bin/codex exec` starts the vendor binary (CODEX_MANAGED_BY_NPM=1), which
 * starts its MCP server behind a wrapper that forwards no signals, with none of the agent's
 * variables (Codex passes its servers a whitelist). Real processes; every step is a tick the test
 * makes itself, so what is asserted is which tick reports what, never how long it took.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markerReaderFor, observeAgentsOnce } from '../../src/agents/observe/observe.js';
import { type AgentEvent, createAgentWatcher } from '../../src/agents/observe/watcher.js';
import { loadAgentRules } from '../../src/agents/rules/rules.js';
import { waitForTickOrRootExit } from '../../src/agents/sessions/root-watch.js';
import { identityOf, isRunning, makeTempDir, pollUntil, useProcessTracker } from '../helpers/index.js';

const tracker = useProcessTracker();
/** Longer than any test's timeout: full scans only on the first tick, focused reads after it. */
const NEVER_MS = 600_000;
/** Carried by the wrapper and its server only (no agent's marker): the tracker ends them by it. */
const RUN_MARKER = 'TW_EXIT_TICK_RUN';

/**
 * The vendor binary: on SIGUSR2 (its handler in place once it wrote vendor.ready) it starts the wrapper (a shell ignoring TERM/INT/HUP, its
 * server in the background) with a bare environment, writing the pids it started.
 */
const VENDOR = `
const { spawn } = require('node:child_process');
const [dir, token] = process.argv.slice(-2);
process.on('SIGUSR2', () => {
  const script = 'trap "" TERM INT HUP; "$0" -e "setInterval(() => {}, 1000)" "$1" & echo $! > "$2/server.pid"; wait';
  const wrapper = spawn('sh', ['-c', script, process.execPath, token, dir], {
    env: { PATH: process.env.PATH, ${RUN_MARKER}: token },
    stdio: 'ignore',
  });
  require('node:fs').writeFileSync(dir + '/wrapper.pid', String(wrapper.pid));
});
require('node:fs').writeFileSync(dir + '/vendor.ready', '1');
setInterval(() => {}, 1000);
`;

/**
 * The npm launcher: starts the vendor binary and stays until SIGUSR2. Once the binary exited it
 * blanks its argv: as the real launcher reads while it exits (a dying process's cmdline is empty
 * once its memory is gone, while its stat still shows it running), nothing to recognise it by.
 */
const LAUNCHER = `
const { spawn } = require('node:child_process');
const { writeFileSync } = require('node:fs');
const [dir, vendorPath, vendorSource, token] = process.argv.slice(-4);
const vendor = spawn(process.execPath, ['-e', vendorSource, dir, token], {
  argv0: vendorPath,
  env: { ...process.env, CODEX_MANAGED_BY_NPM: '1' },
  stdio: 'ignore',
});
vendor.on('exit', () => {
  process.title = ' ';
  writeFileSync(dir + '/launcher.bare', '1');
});
process.on('SIGUSR2', () => process.exit(0));
writeFileSync(dir + '/vendor.pid', String(vendor.pid));
setInterval(() => {}, 1000);
`;

function storeContext() {
  const stateRoot = makeTempDir();
  const { rules } = loadAgentRules(stateRoot);
  return { stateRoot, rules, readMarkers: markerReaderFor(rules) };
}

async function pidIn(file: string): Promise<number> {
  await pollUntil(() => existsSync(file) && readFileSync(file, 'utf8').trim() !== '', { description: file });
  return Number(readFileSync(file, 'utf8'));
}

/** The launcher, its vendor binary and (once asked) the wrapper and its server, all real processes. */
async function startCodexShape() {
  const dir = makeTempDir('tw-exit-tick-');
  const token = `tw-exit-tick-server-${process.pid}-${Date.now()}`;
  tracker.trackEnvMarker(RUN_MARKER, token);
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  const launcherPath = join(dir, 'node_modules', '.bin', 'codex');
  writeFileSync(launcherPath, LAUNCHER);
  const vendorPath = join(dir, 'node_modules', '@openai', 'codex-linux-x64', 'vendor', 'x86_64-linux', 'bin', 'codex');
  const launcher = spawn(process.execPath, [launcherPath, 'exec', dir, vendorPath, VENDOR, token], {
    stdio: 'ignore',
    detached: true,
  });
  tracker.trackChild(launcher, { detached: true });
  const launcherPid = launcher.pid as number;
  const vendorPid = await pidIn(join(dir, 'vendor.pid'));
  tracker.trackPid(vendorPid);
  await pidIn(join(dir, 'vendor.ready'));
  expect(readFileSync(`/proc/${vendorPid}/cmdline`, 'utf8').startsWith(vendorPath)).toBe(true);
  return {
    launcherPid,
    vendorPid,
    /** The vendor binary exited and the launcher, still running, shows no argv. */
    bare: () => pidIn(join(dir, 'launcher.bare')),
    /** The agent starts its MCP server: the wrapper and, under it, the server. */
    async startServer() {
      process.kill(vendorPid, 'SIGUSR2');
      const wrapperPid = await pidIn(join(dir, 'wrapper.pid'));
      tracker.trackPid(wrapperPid);
      const serverPid = await pidIn(join(dir, 'server.pid'));
      tracker.trackPid(serverPid);
      return { wrapperPid, serverPid };
    },
  };
}

/** This test's session's end among a tick's events (others' sessions end on this machine too). */
function endedIds(events: readonly AgentEvent[], sessionId: string): string[] {
  return events.flatMap((e) => (e.type === 'session-ended' && e.session.id === sessionId ? [e.session.id] : []));
}

function leakedPids(events: readonly AgentEvent[], sessionId: string): number[] {
  return events
    .flatMap((event) => (event.type === 'leak-found' && event.leak.sessionId === sessionId ? event.newPids : []))
    .sort((a, b) => a - b);
}

describe.skipIf(process.platform !== 'linux')('the tick after an agent exits', () => {
  it('reports the server another observer saw, though this watcher never did, on that tick', async () => {
    const context = storeContext();
    const codex = await startCodexShape();
    const watcher = createAgentWatcher({ ...context, fullScanIntervalMs: NEVER_MS, engineSocket: null });
    // The full scan that finds the session, before the agent starts its server.
    const first = watcher.tick().observation.live.find((session) => session.root.pid === codex.launcherPid);
    expect(first?.agent).toBe('codex');
    const sessionId = first?.id as string;
    const { wrapperPid, serverPid } = await codex.startServer();
    // `treewarden sessions` (sharing the store) sees the server as the session's member.
    await pollUntil(
      () =>
        observeAgentsOnce(context)
          .live.find((session) => session.id === sessionId)
          ?.members.some((member) => member.entry.pid === serverPid),
      { description: 'the other observer to remember the server' },
    );
    // The agent exits before this watcher's next tick: the wrapper lands under pid 1, no ancestry left.
    process.kill(codex.vendorPid, 'SIGKILL');
    process.kill(codex.launcherPid, 'SIGKILL');
    await pollUntil(() => !isRunning(codex.launcherPid) && !isRunning(codex.vendorPid), {
      description: 'the agent to exit',
    });
    const tick = watcher.tick();
    expect(tick.events.filter((e) => e.type === 'session-ended').map((e) => e.session.id)).toContain(sessionId);
    expect(leakedPids(tick.events, sessionId)).toEqual([wrapperPid, serverPid].sort((a, b) => a - b));
  });

  it('ticks at the exit of a launcher that outlives its agent, and reports the leftovers then', async () => {
    const context = storeContext();
    const codex = await startCodexShape();
    const watcher = createAgentWatcher({ ...context, fullScanIntervalMs: NEVER_MS, engineSocket: null });
    const { wrapperPid, serverPid } = await codex.startServer();
    const first = watcher.tick().observation.live.find((session) => session.root.pid === codex.launcherPid);
    expect(first?.members.map((member) => member.entry.pid)).toContain(serverPid);
    const sessionId = first?.id as string;
    // SIGTERM to both, as the suite sends it: the vendor binary goes first, the launcher lingers
    // (the real one re-raises the child's signal at itself), read with no argv on the next tick.
    process.kill(codex.vendorPid, 'SIGKILL');
    await codex.bare();
    const lingering = watcher.tick();
    // Other people's sessions on this machine start and end too (each tick judges new processes).
    expect(endedIds(lingering.events, sessionId)).toEqual([]);
    expect(lingering.observation.live.map((session) => session.id)).not.toContain(sessionId);
    // The launcher is still the session's root, so its exit must end the wait between ticks.
    const launcher = identityOf(codex.launcherPid);
    expect(watcher.liveRoots()).toContainEqual(launcher);
    process.kill(codex.launcherPid, 'SIGUSR2');
    expect(await waitForTickOrRootExit(watcher.liveRoots, NEVER_MS)).toBe(true);
    const tick = watcher.tick();
    expect(endedIds(tick.events, sessionId)).toEqual([sessionId]);
    expect(leakedPids(tick.events, sessionId)).toEqual([wrapperPid, serverPid].sort((a, b) => a - b));
  });
});
