import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { removeDirs, startClient, startServerTree } from '../../../../test-support/port-helpers.js';
import { executeFreePort } from '../../src/ports/free-port.js';
import { readListeningSockets } from '../../src/ports/linux-ports.js';
import { assertPort, PortRangeError, planFreePort } from '../../src/ports/plan-free-port.js';
import type { PortReader } from '../../src/ports/types.js';
import type { ProcessEntry, TableReader } from '../../src/table/types.js';
import { isRunning, pollUntil, startTimeOf, useProcessTracker } from '../helpers/index.js';

const FAST_GRACE = { graceMs: 500 };

/** Whether any listening TCP or bound UDP socket on this machine has `port`. */
function listensOn(port: number): boolean {
  return [...(readListeningSockets()?.values() ?? [])].some((socket) => socket.port === port);
}
/** Bound on a listener started for a test reporting its port. */
const LISTENER_READY_MS = 15_000;

describe.skipIf(process.platform !== 'linux')('free a port (real processes)', () => {
  const tracker = useProcessTracker();
  const dirs: string[] = [];
  afterEach(() => removeDirs(dirs));

  it('previews the listener tree, then ends it (setsid grandchild included) and leaves a connected client alive', async () => {
    const tree = await startServerTree(tracker);
    dirs.push(...tree.dirs);
    const client = await startClient(tracker, tree.tcpPort);
    dirs.push(client.dir);
    const plan = await planFreePort(tree.tcpPort, 'tcp');
    expect(plan.refusals).toEqual([]);
    expect(plan.listeners.map((l) => l.pid)).toEqual([tree.serverPid]);
    expect(plan.targets.map((t) => t.identity)).toEqual([
      { pid: tree.serverPid, startTime: startTimeOf(tree.serverPid) },
    ]);
    expect(plan.targets[0]?.tree.map((e) => e.pid).sort()).toEqual([tree.serverPid, tree.listenerPid].sort());
    expect(plan.targets[0]?.tree.some((e) => e.pid === client.pid)).toBe(false);

    const outcome = await executeFreePort(plan, FAST_GRACE);
    expect(outcome.result).toBe('freed');
    expect(outcome.stillListening).toEqual([]);
    expect(isRunning(tree.serverPid)).toBe(false);
    expect(isRunning(tree.listenerPid)).toBe(false);
    expect(isRunning(client.pid)).toBe(true);
    expect((await planFreePort(tree.tcpPort, 'tcp')).listeners).toEqual([]);
  });

  it('frees a UDP port only when asked for udp', async () => {
    const tree = await startServerTree(tracker);
    dirs.push(...tree.dirs);
    expect((await planFreePort(tree.udpPort, 'tcp')).targets).toEqual([]);
    const plan = await planFreePort(tree.udpPort, 'udp');
    expect(plan.targets.map((t) => t.identity.pid)).toEqual([tree.serverPid]);
    expect((await executeFreePort(plan, FAST_GRACE)).result).toBe('freed');
  });

  it('refuses, signalling nothing, when the listener is not the process the preview saw', async () => {
    const tree = await startServerTree(tracker);
    dirs.push(...tree.dirs);
    const plan = await planFreePort(tree.tcpPort, 'tcp');
    // The race (the listener exits and its pid is reused between preview and kill) cannot be
    // produced on demand: the preview is given the identity a recycled pid would leave behind.
    const [target] = plan.targets;
    if (target === undefined) throw new Error('no target planned');
    const stale = { ...plan, targets: [{ ...target, identity: { ...target.identity, startTime: '1' } }] };
    const outcome = await executeFreePort(stale, FAST_GRACE);
    expect(outcome.result).toBe('refused');
    expect(outcome.outcomes[0]?.result).toBe('refused');
    expect(isRunning(tree.serverPid)).toBe(true);
    expect(isRunning(tree.listenerPid)).toBe(true);
  });

  it('reports survivors when the port is held again after the kill (a supervisor outside the tree restarted it)', async () => {
    const tree = await startServerTree(tracker);
    dirs.push(...tree.dirs);
    const plan = await planFreePort(tree.tcpPort, 'tcp');
    // A restart by a supervisor cannot be timed against the release check: inject the map it leaves.
    const restarted = {
      port: tree.tcpPort,
      proto: 'tcp' as const,
      family: 4 as const,
      address: '127.0.0.1',
      pid: 4242,
      startTime: '1',
      inode: 1,
    };
    const ports: PortReader = {
      platform: 'linux',
      readAll: async () => ({ listeners: [restarted], unattributed: [], skippedPids: 0, readAtMs: Date.now() }),
      readForPids: async () => null,
    };
    const outcome = await executeFreePort(plan, { ...FAST_GRACE, ports });
    expect(outcome.outcomes.map((kill) => kill.result)).toEqual(['killed']);
    expect(outcome.result).toBe('survivors');
    expect(outcome.stillListening).toEqual([restarted]);
    expect(isRunning(tree.serverPid)).toBe(false);
  });

  it('reports nothing listening on a free port, and refuses port numbers out of range', async () => {
    const tree = await startServerTree(tracker);
    dirs.push(...tree.dirs);
    tracker.trackPid(tree.serverPid);
    process.kill(tree.listenerPid, 'SIGKILL');
    await pollUntil(() => !isRunning(tree.listenerPid), { description: 'listener gone' });
    // A killed node process shows as a zombie (its main thread exited) while its other threads
    // still exit holding its fds: its socket can listen on a moment longer, held by a pid whose fd
    // dir no longer reads. Under load that moment was long enough to be planned as "held by a
    // process Treewarden cannot inspect". The port is free once the socket left the table.
    await pollUntil(() => !listensOn(tree.listenerPort), { description: 'its socket closed' });
    const plan = await planFreePort(tree.listenerPort, 'tcp');
    expect(plan.refusals).toEqual([]);
    expect(plan.listeners).toEqual([]);
    expect((await executeFreePort(plan)).result).toBe('nothing_listening');
    for (const bad of [0, 65_536, -1, 1.5, Number.NaN]) expect(() => assertPort(bad)).toThrow(PortRangeError);
  });

  it.skipIf(process.getuid?.() !== 0)("refuses another user's listener before anything is signalled", async () => {
    // As root, start a listener as `nobody`: the engine only ends its own user's processes.
    const script =
      "require('net').createServer().listen(0,'127.0.0.1',function(){console.log(this.address().port)});setTimeout(()=>{},60000)";
    const child = spawn(process.execPath, ['-e', script], {
      uid: 65_534,
      gid: 65_534,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    tracker.trackChild(child);
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('nobody listener did not start')), LISTENER_READY_MS);
      child.stdout?.once('data', (chunk: Buffer) => {
        clearTimeout(timer);
        resolve(Number(chunk.toString().trim()));
      });
    });
    const plan = await planFreePort(port, 'tcp');
    expect(plan.refusals.join('\n')).toMatch(/EPERM: pid \d+ belongs to uid 65534/);
    const outcome = await executeFreePort(plan, FAST_GRACE);
    expect(outcome).toMatchObject({ result: 'refused', outcomes: [] });
    expect(isRunning(child.pid as number)).toBe(true);
  });
});

describe('free-port refusals that this machine cannot produce (injected map and table)', () => {
  const uid = process.getuid?.() ?? 1000;
  const entry = (pid: number, ppid: number, command: string): ProcessEntry => ({
    pid,
    startTime: `${pid}00`,
    ppid,
    pgid: pid,
    sid: pid,
    state: 'S',
    uid,
    command,
    args: [command],
    cwd: null,
    cpuTimeMs: 0,
    rssBytes: 0,
    startedAtMs: pid,
  });
  const table: TableReader = {
    platform: 'linux',
    readAll: async () => ({
      entries: new Map([
        [4000, entry(4000, 1, 'systemd')],
        [4100, entry(4100, 4000, 'sshd')],
      ]),
      readAtMs: 0,
    }),
    readTrees: async () => null,
  };
  const ports: PortReader = {
    platform: 'linux',
    readAll: async () => ({
      listeners: [
        { port: 8022, proto: 'tcp', family: 4, address: '0.0.0.0', pid: 4000, startTime: '400000', inode: 7 },
      ],
      unattributed: [],
      skippedPids: 0,
      readAtMs: 0,
    }),
    readForPids: async () => null,
  };

  it('refuses a service manager holding a port for socket activation (systemd --user, launchd)', async () => {
    const plan = await planFreePort(8022, 'tcp', { ports, table });
    expect(plan.targets.map((t) => t.tree.map((e) => e.pid))).toEqual([[4000, 4100]]);
    expect(plan.refusals).toEqual([expect.stringMatching(/pid 4000 \(systemd\) is a service manager/)]);
    expect((await executeFreePort(plan)).result).toBe('refused');
  });
});
