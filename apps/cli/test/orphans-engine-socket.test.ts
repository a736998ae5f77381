/**
 * `treewarden orphans` beside a container engine socket that does not serve: a socket file a
 * stopped daemon left (nobody listens) is no engine and says nothing, while an engine that answers
 * with an error is still reported on stderr. Neither changes the exit code: the process half runs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { writeSession } from '@treewarden/engine';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../../../test-support/cli-helpers.js';
import { makeTempDir, privateHome } from '../../../test-support/index.js';

/** A socket file with no listener: a process listens on it, then dies by SIGKILL (no unlink). */
function leftSocket(path: string): void {
  const script = `require('net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`;
  spawnSync(process.execPath, ['-e', script], { stdio: 'ignore' });
  if (!existsSync(path)) throw new Error(`no socket file left at ${path}`);
}

/** An ended session in the state root, so `orphans` has a reason to ask the engine. */
function plantEndedSession(stateRoot: string): void {
  // Its root: a real process, already gone (its identity is all the record needs).
  const root = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const pid = Number(root.stdout);
  const now = Date.now();
  writeSession(stateRoot, {
    version: 1,
    id: `claude-code-${pid}-gone`,
    agent: 'claude-code',
    root: { pid, startTime: 'gone', args: ['claude'] },
    cwd: stateRoot,
    startedAtMs: now - 60_000,
    lastSeenAtMs: now - 1000,
    endedAtMs: now - 1000,
    members: [],
    sessionKeys: [],
  });
}

describe('orphans beside an engine socket that does not serve', () => {
  const dirs: string[] = [];
  const servers: Server[] = [];
  beforeAll(assertBuilt);
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function setUp(): { env: Record<string, string>; socket: string } {
    const home = privateHome();
    const stateRoot = home.TREEWARDEN_HOME ?? '';
    const sockets = makeTempDir('tw-engine-sock-');
    dirs.push(stateRoot, sockets);
    plantEndedSession(stateRoot);
    const socket = join(sockets, 'docker.sock');
    return { env: { ...home, DOCKER_HOST: `unix://${socket}` }, socket };
  }

  it('says nothing of a socket file nobody listens on', async () => {
    const { env, socket } = setUp();
    leftSocket(socket);
    const result = await runCli(['orphans', '--json'], env);
    expect([result.code, result.stderr]).toEqual([0, '']);
  });

  it('still reports an engine that answers with an error', async () => {
    const { env, socket } = setUp();
    const server = createServer((_request, response) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end('engine is broken');
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    const result = await runCli(['orphans', '--json'], env);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/container engine at .*docker\.sock: .*500/);
  });
});
