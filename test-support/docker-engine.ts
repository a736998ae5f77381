/**
 * A real Docker Engine for the container tests. Uses the daemon already listening (DOCKER_HOST's
 * unix socket or /var/run/docker.sock); otherwise, as root with `dockerd` installed, starts one on
 * the default socket with `--iptables=false --bridge=none` and leaves it for the rest of the suite
 * (a second suite finds it up). Without an engine the tests fail under CI=true and skip locally,
 * with the reason. A lane that runs in its own pid namespace (`npm test`'s e2e lane, beside the unit
 * suite) names a directory in TREEWARDEN_TEST_DOCKER_DIR instead: its daemon is its own (socket,
 * data and exec roots there), so no container or daemon of one lane shows in the other's /proc,
 * where its pids would name other processes or none. The image is built offline: `docker import` of a rootfs holding Debian's
 * busybox-static and its applet links; containers always run with `--network none`.
 */
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { engineRequest, findEngineSocket } from '@treewarden/engine';

export { engineRequest };

import { SUITE_ENV } from './leak-guard.js';
import { pollUntil } from './poll-until.js';

const run = promisify(execFile);

/** dockerd's first start (containerd, overlay2 probe) takes a few seconds; under load, more. */
const DOCKERD_START_DEADLINE_MS = 60_000;
const DOCKERD_POLL_MS = 200;
const DOCKER_CLI_TIMEOUT_MS = 60_000;
const DEFAULT_SOCKET = '/var/run/docker.sock';
const BUSYBOX = '/usr/bin/busybox';
export const TEST_IMAGE = 'treewarden-test/busybox:1';
const APPLETS = ['sh', 'sleep', 'cat', 'ls', 'true'];

export type TestEngine = { readonly socketPath: string } | { readonly skip: string };

async function pings(socketPath: string): Promise<boolean> {
  try {
    return (await engineRequest(socketPath, 'GET', '/_ping', 2000)).status === 200;
  } catch {
    return false;
  }
}

function dockerdBinary(): string | null {
  return ['/usr/sbin/dockerd', '/usr/bin/dockerd'].find((p) => existsSync(p)) ?? null;
}

/** Started once per worker at most; the daemon outlives the suite on purpose (it is infrastructure). */
let starting: Promise<TestEngine> | null = null;

/** Where a lane's own daemon lives, when it has one (see the file's comment); null for the shared one. */
export const PRIVATE_ENGINE_ENV = 'TREEWARDEN_TEST_DOCKER_DIR';

function privateEngineDir(): string | null {
  const dir = process.env[PRIVATE_ENGINE_ENV];
  return dir === undefined || dir === '' ? null : dir;
}

async function startDockerd(binary: string, privateDir: string | null): Promise<TestEngine> {
  const logDir = privateDir ?? mkdtempSync(join(tmpdir(), 'tw-dockerd-'));
  const log = join(logDir, 'dockerd.log');
  const socketPath = privateDir === null ? DEFAULT_SOCKET : join(privateDir, 'docker.sock');
  // Without the suite marker: the leak guard judges processes the tests leave, and the daemon is
  // not one of them.
  const env = { ...process.env };
  delete env[SUITE_ENV];
  const fd = openSync(log, 'a');
  // Its own pid file: dockerd refuses to start while /var/run/docker.pid names a live process, and
  // a file a dead daemon left (a machine restored from a snapshot has one) names whatever process
  // got that pid since; seen here failing every container test of a CI run.
  const pidFile = join(logDir, 'dockerd.pid');
  const args = ['--iptables=false', '--ip6tables=false', '--bridge=none', `--pidfile=${pidFile}`];
  if (privateDir !== null)
    args.push(
      `--host=unix://${socketPath}`,
      `--data-root=${join(privateDir, 'data')}`,
      `--exec-root=${join(privateDir, 'exec')}`,
    );
  const child = spawn(binary, args, {
    detached: true,
    stdio: ['ignore', fd, fd],
    env,
  });
  child.unref();
  const up = await pollUntil(() => pings(socketPath), {
    description: `dockerd to answer on ${socketPath} (log: ${log})`,
    deadlineMs: DOCKERD_START_DEADLINE_MS,
    intervalMs: DOCKERD_POLL_MS,
  }).catch(() => false);
  return up ? { socketPath } : { skip: `dockerd did not answer within ${DOCKERD_START_DEADLINE_MS} ms (log: ${log})` };
}

/** An engine to test against, or why there is none. */
export async function testEngine(): Promise<TestEngine> {
  const privateDir = privateEngineDir();
  if (privateDir !== null) {
    // Everything this lane starts (serve, the docker CLI) finds the lane's daemon first.
    process.env.DOCKER_HOST = `unix://${join(privateDir, 'docker.sock')}`;
  }
  const socket = privateDir === null ? findEngineSocket() : join(privateDir, 'docker.sock');
  if (socket !== null && (await pings(socket))) return { socketPath: socket };
  const binary = dockerdBinary();
  if (binary === null)
    return { skip: 'no Docker Engine socket answers and dockerd is not installed (apt-get install docker.io)' };
  if (process.getuid?.() !== 0) return { skip: 'no Docker Engine socket answers and starting dockerd needs root' };
  starting ??= startDockerd(binary, privateDir);
  return starting;
}

/** The engine, or: throw under CI (a missing engine is a broken CI), return the skip reason locally. */
export async function requireTestEngine(): Promise<TestEngine> {
  const engine = await testEngine();
  if ('skip' in engine && process.env.CI === 'true') throw new Error(`CI needs a Docker Engine: ${engine.skip}`);
  return engine;
}

/** `docker …` against the given socket. */
export async function docker(socketPath: string, args: readonly string[]): Promise<string> {
  const env = { ...process.env, DOCKER_HOST: `unix://${socketPath}` };
  const { stdout } = await run('docker', [...args], { env, timeout: DOCKER_CLI_TIMEOUT_MS });
  return stdout.trim();
}

/** The offline busybox image, imported once per engine. */
export async function ensureTestImage(socketPath: string): Promise<string> {
  const res = await engineRequest(socketPath, 'GET', `/images/${encodeURIComponent(TEST_IMAGE)}/json`);
  if (res.status === 200) return TEST_IMAGE;
  if (!existsSync(BUSYBOX)) throw new Error(`${BUSYBOX} is missing (apt-get install busybox-static)`);
  const root = mkdtempSync(join(tmpdir(), 'tw-rootfs-'));
  try {
    mkdirSync(join(root, 'bin'));
    copyFileSync(BUSYBOX, join(root, 'bin', 'busybox'));
    for (const applet of APPLETS) symlinkSync('busybox', join(root, 'bin', applet));
    await run('sh', ['-c', `tar -C '${root}' -c . | docker import - '${TEST_IMAGE}'`], {
      env: { ...process.env, DOCKER_HOST: `unix://${socketPath}` },
      timeout: DOCKER_CLI_TIMEOUT_MS,
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return TEST_IMAGE;
}

/** Containers a test started, removed by id afterwards (force: running ones too; volumes kept). */
export function createContainerTracker(socketPath: string) {
  const ids: string[] = [];
  return {
    /** `docker run -d --network none IMAGE ARGS…` → the container id. */
    async runDetached(args: readonly string[], name?: string): Promise<string> {
      const nameArgs = name === undefined ? [] : ['--name', name];
      const id = await docker(socketPath, ['run', '-d', '--network', 'none', ...nameArgs, TEST_IMAGE, ...args]);
      ids.push(id);
      return id;
    },
    track(id: string): void {
      ids.push(id);
    },
    async removeAll(): Promise<void> {
      for (const id of ids.splice(0)) await engineRequest(socketPath, 'DELETE', `/containers/${id}?force=1`);
    },
  };
}
