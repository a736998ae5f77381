/**
 * stopSessionContainers through the real host and a real Docker Engine: an ended session's
 * strongly attributed container is stopped (and recorded in the ledger, shown by getActivity);
 * its weak one (a bind mount of the session's directory) only with includeWeak; a confirmed
 * creation time that does not match is refused; a container of no session is never stopped
 * even when named. The attribution itself is the observer's (tested in the engine); here its
 * record is written as the observer writes it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLedger, readLiveStartTime, statePaths, writeSession, writeStoredContainer } from '@treewarden/engine';
import type { ActivityEntry, CommandResult } from '@treewarden/protocol';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createContainerTracker,
  docker,
  ensureTestImage,
  requireTestEngine,
  TEST_IMAGE,
} from '../../../test-support/docker-engine.js';
import { useProcessTracker } from '../../../test-support/index.js';
import { expectOk, SLOW_TEST_MS, useTestHost } from './helpers.js';

const IMAGE_DEADLINE_MS = 120_000;
const SLEEP = '600';

const engine = await requireTestEngine();
const socketPath = 'socketPath' in engine ? engine.socketPath : '';
const skipReason = 'skip' in engine ? engine.skip : null;
if (skipReason !== null) console.warn(`host container stop tests skipped: ${skipReason}`);

type Stopped = CommandResult<'stopSessionContainers'>;

async function createdAtMs(id: string): Promise<number> {
  return Date.parse(await docker(socketPath, ['inspect', '-f', '{{.Created}}', id]));
}

describe.skipIf(skipReason !== null)('stopping a session’s leftover containers from the app', () => {
  const containers = createContainerTracker(socketPath);
  const tracker = useProcessTracker();
  const startHost = useTestHost();
  const dirs: string[] = [];
  beforeAll(async () => {
    await ensureTestImage(socketPath);
  }, IMAGE_DEADLINE_MS);
  afterEach(async () => {
    await containers.removeAll();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'stops the strong leftover, the weak one only when asked for all, refuses a changed or foreign one, and records each stop',
    async () => {
      const { host, stateDir } = startHost(60_000);
      const cwd = mkdtempSync(join(tmpdir(), 'tw-host-ct-'));
      dirs.push(cwd);
      const root = spawn('sleep', [SLEEP], { stdio: 'ignore' });
      tracker.trackChild(root);
      const rootStart = readLiveStartTime(root.pid as number) ?? '0';
      root.kill('SIGKILL');
      await new Promise((resolve) => root.once('exit', resolve));
      const sessionId = `claude-code-${root.pid}-${rootStart}`;
      const now = Date.now();
      const strong = await containers.runDetached(['sleep', SLEEP], `tw-host-strong-${process.pid}`);
      writeStoredContainer(stateDir, {
        version: 1,
        id: strong,
        sessionId,
        name: `tw-host-strong-${process.pid}`,
        image: TEST_IMAGE,
        createdAtMs: await createdAtMs(strong),
        attributedAtMs: now,
        evidence: [{ kind: 'creating-cli-member', detail: 'docker run -d (pid 1) of the session created it' }],
      });
      const weak = await docker(socketPath, [
        'run',
        '-d',
        '--network',
        'none',
        '-v',
        `${cwd}:/w`,
        TEST_IMAGE,
        'sleep',
        SLEEP,
      ]);
      containers.track(weak);
      const stranger = await containers.runDetached(['sleep', SLEEP]);
      const endedAtMs = Date.now();
      writeSession(stateDir, {
        version: 1,
        id: sessionId,
        agent: 'claude-code',
        root: { pid: root.pid as number, startTime: rootStart, args: ['claude'] },
        cwd,
        startedAtMs: now - 60_000,
        lastSeenAtMs: endedAtMs,
        endedAtMs,
        members: [],
        sessionKeys: [],
      });
      const state = (id: string) => docker(socketPath, ['inspect', '-f', '{{.State.Status}}', id]);
      const target = async (id: string) => ({ id, createdAtMs: await createdAtMs(id) });

      // A creation time other than the container's: not the one confirmed, nothing stopped.
      const changed = expectOk<Stopped>(
        await host.handle({
          type: 'stopSessionContainers',
          sessionId,
          targets: [{ id: strong, createdAtMs: (await createdAtMs(strong)) - 1000 }],
          graceSeconds: 1,
        }),
      );
      expect(changed.containers.map((c) => [c.id, c.result])).toEqual([[strong, 'changed']]);
      expect(await state(strong)).toBe('running');

      const first = expectOk<Stopped>(
        await host.handle({
          type: 'stopSessionContainers',
          sessionId,
          targets: [await target(strong), await target(weak), await target(stranger)],
          graceSeconds: 1,
        }),
      );
      expect(new Map(first.containers.map((c) => [c.id, c.result]))).toEqual(
        new Map([
          [strong, 'stopped'],
          [weak, 'needs-all'],
          [stranger, 'refused'],
        ]),
      );
      expect(await state(strong)).toBe('exited');
      expect(await state(weak)).toBe('running');
      expect(await state(stranger)).toBe('running');

      const all = expectOk<Stopped>(
        await host.handle({
          type: 'stopSessionContainers',
          targets: [await target(weak), await target(stranger)],
          includeWeak: true,
          graceSeconds: 1,
        }),
      );
      expect(new Map(all.containers.map((c) => [c.id, c.result]))).toEqual(
        new Map([
          [weak, 'stopped'],
          [stranger, 'refused'],
        ]),
      );
      expect(await state(weak)).toBe('exited');
      expect(await state(stranger)).toBe('running');

      // Each stop is in the ledger (with its identity and who asked) and comes back as Activity.
      const stops = readLedger(statePaths(stateDir).ledgerFile).records.filter((r) => r.kind === 'container_stop');
      expect(stops.map((r) => [r.containerId, r.result, r.reason, r.by.role])).toEqual([
        [strong, 'stopped', 'app_container_clean', 'app'],
        [weak, 'stopped', 'app_container_clean', 'app'],
      ]);
      const activity = expectOk<{ entries: ActivityEntry[] }>(await host.handle({ type: 'getActivity', limit: 10 }));
      const lines = activity.entries.filter((e) => e.kind === 'container_stop');
      expect(lines.map((e) => e.ok)).toEqual([true, true]);
      expect(lines[1]?.title).toContain(`tw-host-strong-${process.pid}`);
      expect(lines[1]?.title).toContain(`of session ${sessionId}: stopped`);
    },
    SLOW_TEST_MS,
  );
});
