/**
 * Containers (needs a Docker Engine; says so and stops when none answers): the delay between the
 * engine's `start` event of a session member's `docker run -d` and its attribution to the session,
 * the cost of listing 100 containers with their session judgement (target ≤ 20 ms), and the
 * observer's idle CPU with the event stream open at ~1,000 processes (container-idle.ts). Every
 * container made here is removed by id; the image is the tests' offline busybox import.
 */
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  ContainerAttributor,
  type ContainerEvent,
  engineRequest,
  findEngineSocket,
  followContainerEvents,
  listContainers,
  parseListedContainer,
  readLiveStartTime,
  readSessionContainers,
  type StoredSession,
} from '@treewarden/engine';
import { observerIdleWithStream } from './container-idle.js';
import { median } from './util.js';

const run = promisify(execFile);
const IMAGE = 'treewarden-test/busybox:1';
const ROUNDS = 5;
const LISTED = 100;
const LIST_ROUNDS = 30;
const WAIT_MS = 20_000;

async function ensureImage(socketPath: string): Promise<void> {
  const res = await engineRequest(socketPath, 'GET', `/images/${encodeURIComponent(IMAGE)}/json`);
  if (res.status === 200) return;
  const root = mkdtempSync(join(tmpdir(), 'tw-bench-rootfs-'));
  try {
    mkdirSync(join(root, 'bin'));
    copyFileSync('/usr/bin/busybox', join(root, 'bin', 'busybox'));
    for (const applet of ['sh', 'sleep']) symlinkSync('busybox', join(root, 'bin', applet));
    await run('sh', ['-c', `tar -C '${root}' -c . | docker import - '${IMAGE}'`], {
      env: { ...process.env, DOCKER_HOST: `unix://${socketPath}` },
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function until<T>(read: () => T | undefined): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('container bench: waited too long');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function session(rootPid: number, cwd: string): StoredSession {
  const now = Date.now();
  return {
    version: 1,
    id: `bench-${rootPid}`,
    agent: 'claude-code',
    root: { pid: rootPid, startTime: readLiveStartTime(rootPid) ?? '0', args: ['claude'] },
    cwd,
    startedAtMs: now,
    lastSeenAtMs: now,
    endedAtMs: null,
    members: [],
    sessionKeys: [],
  };
}

/** One member's `docker run -d`: ms from the start event (as read) to the attribution. */
async function attributionDelays(socketPath: string, stateRoot: string, made: string[]): Promise<number[]> {
  const attributed = new Map<string, number>();
  const events: ContainerEvent[] = [];
  const attributor = new ContainerAttributor({
    stateRoot,
    socketPath,
    onAttributed: (id, _s, at) => attributed.set(id, at),
  });
  let connected = false;
  const stream = followContainerEvents(
    (event) => {
      events.push(event);
      void attributor.onEvent(event);
    },
    { findSocket: () => socketPath, onConnected: () => (connected = true) },
  );
  const delays: number[] = [];
  try {
    await until(() => (connected ? true : undefined));
    for (let i = 0; i < ROUNDS; i += 1) {
      const script = `read go; exec docker run -d --network none ${IMAGE} sleep 600`;
      const root = spawn('sh', ['-c', script], {
        stdio: ['pipe', 'pipe', 'ignore'],
        env: { ...process.env, DOCKER_HOST: `unix://${socketPath}` },
      });
      let out = '';
      root.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
      await attributor.setSessions([session(root.pid as number, stateRoot)]);
      root.stdin?.write('go\n');
      await new Promise((resolve) => root.once('exit', resolve));
      const id = out.trim();
      made.push(id);
      const start = await until(() => events.find((e) => e.id === id && e.action === 'start'));
      const at = await until(() => attributed.get(id));
      delays.push(Math.max(0, at - start.receivedAtMs));
    }
  } finally {
    stream.close();
  }
  return delays;
}

export async function runContainerBench(): Promise<string> {
  const socketPath = findEngineSocket();
  if (socketPath === null) return '_skipped: no Docker Engine socket on this machine_';
  await ensureImage(socketPath);
  const stateRoot = mkdtempSync(join(tmpdir(), 'tw-bench-ct-'));
  const made: string[] = [];
  try {
    const delays = await attributionDelays(socketPath, stateRoot, made);
    const env = { ...process.env, DOCKER_HOST: `unix://${socketPath}` };
    const before = (await listContainers(socketPath, true)).length;
    for (let i = before; i < LISTED; i += 1) {
      const { stdout } = await run('docker', ['create', '--network', 'none', IMAGE, 'sleep', '600'], { env });
      made.push(stdout.trim());
    }
    const listed = (await listContainers(socketPath, true)).length;
    const sessions = [session(process.pid, stateRoot)];
    const listMs: number[] = [];
    const judgedMs: number[] = [];
    const parseMs: number[] = [];
    for (let i = 0; i < LIST_ROUNDS; i += 1) {
      let t = performance.now();
      await listContainers(socketPath, true);
      listMs.push(performance.now() - t);
      const body = (await engineRequest(socketPath, 'GET', '/containers/json?all=1')).body;
      t = performance.now();
      (JSON.parse(body) as unknown[]).map(parseListedContainer);
      parseMs.push(performance.now() - t);
      t = performance.now();
      await readSessionContainers(stateRoot, sessions, socketPath);
      judgedMs.push(performance.now() - t);
    }
    return [
      '| measure | median | max | target |',
      '|---|---:|---:|---:|',
      `| attribution after the engine's start event (${ROUNDS} member \`docker run -d\`) | ${median(delays).toFixed(1)} ms | ${Math.max(...delays).toFixed(1)} ms | ≤ 1000 ms |`,
      `| list ${listed} containers (\`/containers/json?all=1\`) | ${median(listMs).toFixed(1)} ms | ${Math.max(...listMs).toFixed(1)} ms | ≤ 20 ms |`,
      `| of which Treewarden's parse of that answer | ${median(parseMs).toFixed(2)} ms | ${Math.max(...parseMs).toFixed(2)} ms | |`,
      `| list ${listed} and judge them for a session (store + weak evidence) | ${median(judgedMs).toFixed(1)} ms | ${Math.max(...judgedMs).toFixed(1)} ms | ≤ 20 ms |`,
      '',
      await observerIdleWithStream(socketPath),
    ].join('\n');
  } finally {
    for (const id of made)
      if (id !== '') await engineRequest(socketPath, 'DELETE', `/containers/${id}?force=1`).catch(() => undefined);
    rmSync(stateRoot, { recursive: true, force: true });
  }
}
