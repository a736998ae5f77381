import { spawn } from 'node:child_process';
import { portsReportSchema } from '@treewarden/protocol';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI_MAIN, cliRunsTimeoutMs, runCli } from '../../../test-support/cli-helpers.js';
import { isRunning, pollUntil, startTimeOf, useProcessTracker } from '../../../test-support/index.js';
import { removeDirs, startClient, startServerTree } from '../../../test-support/port-helpers.js';

/** Bound on the listener-that-runs-free-port test reporting its port and its CLI's result. */
const ANCESTOR_TEST_MS = 25_000;

describe.skipIf(process.platform !== 'linux')('treewarden ports and free-port', () => {
  const tracker = useProcessTracker();
  const dirs: string[] = [];
  beforeAll(assertBuilt);
  afterEach(() => removeDirs(dirs));

  it('ports --json lists the server, its setsid listener and its UDP socket with identity and run', async () => {
    const runId = `ports-test-${process.pid}`;
    tracker.trackEnvMarker('TREEWARDEN_RUN_ID', runId);
    const tree = await startServerTree(tracker, { TREEWARDEN_RUN_ID: runId });
    dirs.push(...tree.dirs);
    const result = await runCli(['ports', '--json']);
    expect(result.code).toBe(0);
    // The output is the protocol's contract, checked by its own schema (strict: no extra keys).
    const { ports } = portsReportSchema.parse(JSON.parse(result.stdout));
    const server = ports.filter((row) => row.pid === tree.serverPid);
    expect(server.map((row) => `${row.proto}:${row.port}`).sort()).toEqual(
      [`tcp:${tree.tcpPort}`, `udp:${tree.udpPort}`].sort(),
    );
    expect(server[0]).toMatchObject({
      address: '127.0.0.1',
      startTime: startTimeOf(tree.serverPid),
      runId,
      sessionId: null,
    });
    expect(Object.keys(server[0] ?? {}).sort()).toEqual(
      ['address', 'args', 'pid', 'port', 'proto', 'runId', 'sessionId', 'startTime'].sort(),
    );
    expect(server[0]?.args.some((arg) => arg.endsWith('port-server.mjs'))).toBe(true);
    expect(ports.find((row) => row.port === tree.listenerPort)).toMatchObject({ pid: tree.listenerPid, runId });

    const text = await runCli(['ports']);
    expect(text.stdout.split('\n')[0]).toMatch(/^PROTO +ADDRESS +PORT +PID +START +RUN +COMMAND$/);
    expect(text.stdout).toMatch(new RegExp(`tcp +127\\.0\\.0\\.1 +${tree.tcpPort} +${tree.serverPid} .*${runId}`));
  });

  it('free-port previews without signalling, then --yes ends the tree and leaves a connected client alive', async () => {
    const tree = await startServerTree(tracker);
    dirs.push(...tree.dirs);
    const client = await startClient(tracker, tree.tcpPort);
    dirs.push(client.dir);

    const preview = await runCli(['free-port', String(tree.tcpPort), '--json']);
    expect(preview.code).toBe(0);
    const plan = JSON.parse(preview.stdout) as { result: string; preview: { pid: number; tree: { pid: number }[] }[] };
    expect(plan.result).toBe('preview');
    expect(plan.preview.map((target) => target.pid)).toEqual([tree.serverPid]);
    expect(plan.preview[0]?.tree.map((member) => member.pid).sort()).toEqual([tree.serverPid, tree.listenerPid].sort());
    expect(isRunning(tree.serverPid) && isRunning(tree.listenerPid)).toBe(true);

    const freed = await runCli(['free-port', String(tree.tcpPort), '--yes', '--grace', '0.5']);
    expect(freed.stderr).toBe('');
    expect(freed.code).toBe(0);
    expect(freed.stdout).toMatch(new RegExp(`port ${tree.tcpPort}/tcp is free; ended 2 process\\(es\\)`));
    expect(isRunning(tree.serverPid)).toBe(false);
    expect(isRunning(tree.listenerPid)).toBe(false);
    expect(isRunning(client.pid)).toBe(true);
    process.kill(client.pid, 'SIGKILL');
    await pollUntil(() => !isRunning(client.pid), { description: 'client ended by its pid' });
  });

  // Seven CLI runs one after another, and the server tree's start before them.
  it('free-port exits 1 on a port nothing listens on, and 2 for a bad port', {
    timeout: cliRunsTimeoutMs(8),
  }, async () => {
    const tree = await startServerTree(tracker);
    dirs.push(...tree.dirs);
    process.kill(tree.listenerPid, 'SIGKILL');
    await pollUntil(() => !isRunning(tree.listenerPid), { description: 'listener gone' });
    const free = await runCli(['free-port', String(tree.listenerPort), '--yes']);
    expect(free.code).toBe(1);
    expect(free.stdout).toMatch(/nothing listens on port/);
    // `-1` reads as an unknown flag: still a usage error, exit 2.
    expect((await runCli(['free-port', '-1'])).code).toBe(2);
    for (const bad of ['0', '65536', 'http', '80.5', '']) {
      const result = await runCli(['free-port', bad]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/is not a port number \(an integer from 1 to 65535\)/);
    }
  });

  it("refuses (exit 3) when the listener is the CLI's own ancestor", async () => {
    // A server that runs `treewarden free-port ITS_OWN_PORT --yes` as its child.
    const script = `
      const { execFile } = require('node:child_process');
      const server = require('node:net').createServer().listen(0, '127.0.0.1', () => {
        execFile(process.execPath, [${JSON.stringify(CLI_MAIN)}, 'free-port', String(server.address().port), '--yes', '--json'],
          (error, stdout) => { console.log(JSON.stringify({ code: error ? error.code : 0, stdout })); process.exit(0); });
      });
      setTimeout(() => process.exit(1), ${ANCESTOR_TEST_MS});`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    const pid = tracker.trackChild(child);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const line = await pollUntil(() => (output.includes('\n') ? output : null), {
      deadlineMs: ANCESTOR_TEST_MS,
      description: 'the server to report its free-port result',
    });
    const { code, stdout } = JSON.parse(line) as { code: number; stdout: string };
    expect(code).toBe(3);
    expect((JSON.parse(stdout) as { refusals: string[] }).refusals.join(' ')).toMatch(
      new RegExp(`pid ${pid} listens on the port but is protected`),
    );
  });
});
