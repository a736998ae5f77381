/**
 * `treewarden ps` names a container's processes (real Docker Engine; test-support/docker-engine.ts
 * starts dockerd when none runs, CI=true fails without one, local runs skip with the reason).
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../../../test-support/cli-helpers.js';
import {
  createContainerTracker,
  engineRequest,
  ensureTestImage,
  requireTestEngine,
  TEST_IMAGE,
} from '../../../test-support/docker-engine.js';
import { pollUntil } from '../../../test-support/index.js';

const CONTAINER_UP_DEADLINE_MS = 20_000;
const IMAGE_DEADLINE_MS = 120_000;
const SLEEP_SECONDS = '600';

const engine = await requireTestEngine();
const socketPath = 'socketPath' in engine ? engine.socketPath : '';
const skipReason = 'skip' in engine ? engine.skip : null;
if (skipReason !== null) console.warn(`ps container tests skipped: ${skipReason}`);

interface JsonRow {
  readonly pid: number;
  readonly container?: { readonly id: string; readonly name: string | null; readonly image: string | null };
}

describe.skipIf(skipReason !== null)('ps with containers', () => {
  const containers = createContainerTracker(socketPath);
  beforeAll(async () => {
    assertBuilt();
    await ensureTestImage(socketPath);
  }, IMAGE_DEADLINE_MS);
  afterEach(() => containers.removeAll());

  it('shows the container name and image beside its process in --json and text', async () => {
    const name = `tw-ps-${randomUUID().slice(0, 8)}`;
    const id = await containers.runDetached(['sleep', SLEEP_SECONDS], name);
    const pid = await pollUntil(
      async () => {
        const res = await engineRequest(socketPath, 'GET', `/containers/${id}/json`);
        const value = (JSON.parse(res.body) as { State?: { Pid?: number } }).State?.Pid ?? 0;
        return value > 0 ? value : null;
      },
      { description: `container ${name} to run`, deadlineMs: CONTAINER_UP_DEADLINE_MS },
    );
    const json = await runCli(['ps', '--json']);
    expect(json.code).toBe(0);
    const rows = JSON.parse(json.stdout) as JsonRow[];
    expect(rows.find((r) => r.pid === pid)?.container).toMatchObject({ id, name, image: TEST_IMAGE });
    expect(rows.find((r) => r.pid === process.pid)?.container).toBeUndefined();
    const text = await runCli(['ps', '--pid', String(pid)]);
    expect(text.stdout.split('\n')[0]).toContain('CONTAINER');
    expect(text.stdout).toContain(`${name} (${TEST_IMAGE})`);
  });
});
