/**
 * What the container scenario needs of a Docker Engine: the socket, the offline demo image (the
 * tests' `docker import` of Debian's busybox-static: no registry is reachable), a container's
 * main process, and what `docker ps -q | xargs docker stop` would stop, computed and never run.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { engineRequest, findEngineSocket, listContainers } from '@treewarden/engine';
import type { CastMember, PkillPreview } from './pkill-preview.js';

const run = promisify(execFile);
export const DEMO_IMAGE = 'treewarden-test/busybox:1';
const BUSYBOX = '/usr/bin/busybox';
const PING_MS = 2000;

/** Why the scenario cannot run here, or null. */
export function engineUnavailable(): string | null {
  if (findEngineSocket() === null) return 'no Docker Engine socket here (DOCKER_HOST, /var/run/docker.sock)';
  return null;
}

export async function ensureDemoImage(socketPath: string): Promise<void> {
  const ping = await engineRequest(socketPath, 'GET', '/_ping', PING_MS);
  if (ping.status !== 200) throw new Error(`the Docker Engine at ${socketPath} does not answer`);
  const res = await engineRequest(socketPath, 'GET', `/images/${encodeURIComponent(DEMO_IMAGE)}/json`);
  if (res.status === 200) return;
  if (!existsSync(BUSYBOX)) throw new Error(`${BUSYBOX} is missing (apt-get install busybox-static)`);
  const root = mkdtempSync(join(tmpdir(), 'tw-demo-rootfs-'));
  try {
    mkdirSync(join(root, 'bin'));
    copyFileSync(BUSYBOX, join(root, 'bin', 'busybox'));
    for (const applet of ['sh', 'sleep']) symlinkSync('busybox', join(root, 'bin', applet));
    await run('sh', ['-c', `tar -C '${root}' -c . | docker import - '${DEMO_IMAGE}'`], {
      env: { ...process.env, DOCKER_HOST: `unix://${socketPath}` },
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** The container's main process as the host sees it (its pid and start come from /proc), or null. */
export async function mainPidOf(socketPath: string, id: string): Promise<number | null> {
  const res = await engineRequest(socketPath, 'GET', `/containers/${id}/json`);
  if (res.status !== 200) return null;
  const pid = (JSON.parse(res.body) as { State?: { Pid?: unknown } }).State?.Pid;
  return typeof pid === 'number' && pid > 1 ? pid : null;
}

/**
 * `docker ps -q | xargs docker stop`: every running container, the scenario's cast (by its main
 * process) sorted into leaked hit, innocents hit and leaked missed; the rest counted as outside.
 */
export async function previewDockerStopAll(
  socketPath: string,
  cast: readonly CastMember[],
  containerOf: ReadonlyMap<number, string>,
): Promise<PkillPreview> {
  const running = new Set((await listContainers(socketPath, false)).map((c) => c.id));
  const hit = cast.filter((member) => running.has(containerOf.get(member.pid) ?? ''));
  const ours = new Set([...containerOf.values()]);
  return {
    command: 'docker ps -q | xargs docker stop',
    pattern: '',
    innocents: hit.filter((member) => member.role !== 'leaked'),
    leakedHit: hit.filter((member) => member.role === 'leaked').map((member) => member.pid),
    leakedMissed: cast
      .filter((member) => member.role === 'leaked' && !running.has(containerOf.get(member.pid) ?? ''))
      .map((member) => member.pid),
    outsideHits: [...running].filter((id) => !ours.has(id)).length,
  };
}
