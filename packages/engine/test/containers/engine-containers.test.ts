/**
 * Against a real Docker Engine (test-support/docker-engine.ts starts dockerd when none runs):
 * a container's processes are named by their container, its identity is read back through the
 * API, and stop/kill go through the API. Every container is removed by id after each test.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createContainerTracker,
  engineRequest,
  ensureTestImage,
  requireTestEngine,
  TEST_IMAGE,
} from '../../../../test-support/docker-engine.js';
import { pollUntil } from '../../../../test-support/poll-until.js';
import { inspectContainer, killContainer, listContainers, stopContainer } from '../../src/containers/engine-api.js';
import { ContainerResolver } from '../../src/containers/process-containers.js';
import { readProcTable } from '../../src/table/linux-proc.js';

/** A container's first process appears in /proc a moment after `docker run -d` returns. */
const CONTAINER_UP_DEADLINE_MS = 20_000;
/** Long enough to outlive the test; the test removes it anyway. */
const SLEEP_SECONDS = '600';
const STOP_GRACE_SECONDS = 1;

const engine = await requireTestEngine();
const socketPath = 'socketPath' in engine ? engine.socketPath : '';
const skipReason = 'skip' in engine ? engine.skip : null;
if (skipReason !== null) console.warn(`container tests skipped: ${skipReason}`);

async function mainPid(id: string): Promise<number> {
  return pollUntil(
    async () => {
      const res = await engineRequest(socketPath, 'GET', `/containers/${id}/json`);
      const pid = (JSON.parse(res.body) as { State?: { Pid?: number } }).State?.Pid ?? 0;
      return pid > 0 ? pid : null;
    },
    { description: `container ${id} to have a running process`, deadlineMs: CONTAINER_UP_DEADLINE_MS },
  );
}

describe.skipIf(skipReason !== null)('containers through the Docker Engine API', () => {
  const containers = createContainerTracker(socketPath);
  beforeAll(() => ensureTestImage(socketPath).then(() => undefined), 120_000);
  afterEach(() => containers.removeAll());

  it("names a container's processes with its name and image, and no host process", async () => {
    const name = `tw-ct-${randomUUID().slice(0, 8)}`;
    const id = await containers.runDetached(['sh', '-c', `sleep ${SLEEP_SECONDS} & exec sleep ${SLEEP_SECONDS}`], name);
    const pid = await mainPid(id);
    const resolver = new ContainerResolver({ socketPath });
    const found = await pollUntil(
      async () => {
        const map = await resolver.resolve(readProcTable());
        return [...map.values()].filter((c) => c.id === id).length >= 2 ? map : null;
      },
      { description: 'both processes of the container to be named', deadlineMs: CONTAINER_UP_DEADLINE_MS },
    );
    expect(found.get(pid)).toEqual({ id, runtime: 'docker', name, image: TEST_IMAGE });
    expect(found.has(process.pid)).toBe(false);
  });

  it('lists, inspects (id + created time), stops and kills through the API', async () => {
    const name = `tw-ct-${randomUUID().slice(0, 8)}`;
    const id = await containers.runDetached(['sleep', SLEEP_SECONDS], name);
    await mainPid(id);
    const listed = (await listContainers(socketPath)).find((c) => c.id === id);
    expect(listed).toMatchObject({ id, name, image: TEST_IMAGE, state: 'running' });
    const inspected = await inspectContainer(socketPath, id);
    expect(inspected).toMatchObject({ id, name, image: TEST_IMAGE, state: 'running' });
    // The list's Created is in seconds, inspect's to the nanosecond: the same second.
    expect(Math.floor((inspected?.createdAtMs ?? 0) / 1000)).toBe((listed?.createdAtMs ?? -1) / 1000);
    // busybox sleep as pid 1 ignores SIGTERM: stop reaches its SIGKILL after the grace.
    await stopContainer(socketPath, id, STOP_GRACE_SECONDS);
    expect((await inspectContainer(socketPath, id))?.state).toBe('exited');
    await killContainer(socketPath, id); // not running: 409, counted as done
    expect(await inspectContainer(socketPath, `${id.slice(0, 60)}zzzz`)).toBeNull();
  });
});
