/**
 * `treewarden orphans [--clean [--all]]` with a real Docker Engine: an ended session's containers
 * are listed as leftovers; `--clean` stops the strongly attributed one through the API, leaves the
 * weak one (a bind mount of the session's directory) to `--all`, and never touches a decoy.
 * The attribution itself is the observer's (tested in the engine); here its record is written as
 * the observer writes it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLedger, readLiveStartTime, statePaths, writeSession, writeStoredContainer } from '@treewarden/engine';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../../../test-support/cli-helpers.js';
import {
  createContainerTracker,
  docker,
  ensureTestImage,
  requireTestEngine,
} from '../../../test-support/docker-engine.js';
import { privateHome, useProcessTracker } from '../../../test-support/index.js';

const IMAGE_DEADLINE_MS = 120_000;
const SLEEP = '600';

const engine = await requireTestEngine();
const socketPath = 'socketPath' in engine ? engine.socketPath : '';
const skipReason = 'skip' in engine ? engine.skip : null;
if (skipReason !== null) console.warn(`orphans container tests skipped: ${skipReason}`);

interface OrphansJson {
  readonly containers?: { readonly id: string; readonly strength: string }[];
  readonly containersCleaned?: { readonly id: string; readonly result: string }[];
}

describe.skipIf(skipReason !== null)('orphans with containers', () => {
  const containers = createContainerTracker(socketPath);
  const tracker = useProcessTracker();
  const dirs: string[] = [];
  beforeAll(async () => {
    assertBuilt();
    await ensureTestImage(socketPath);
  }, IMAGE_DEADLINE_MS);
  afterEach(async () => {
    await containers.removeAll();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('stops the strong leftover with --clean, the weak one only with --all, never a decoy', async () => {
    const home = privateHome();
    const stateRoot = home.TREEWARDEN_HOME ?? '';
    const env = { ...home, DOCKER_HOST: `unix://${socketPath}` };
    const cwd = mkdtempSync(join(tmpdir(), 'tw-orph-ct-'));
    dirs.push(stateRoot, cwd);
    // The session's root, ended before the command runs (its identity is all the record needs).
    const root = spawn('sleep', [SLEEP], { stdio: 'ignore' });
    tracker.trackChild(root);
    const rootStart = readLiveStartTime(root.pid as number) ?? '0';
    root.kill('SIGKILL');
    await new Promise((resolve) => root.once('exit', resolve));
    const sessionId = `claude-code-${root.pid}-${rootStart}`;
    const now = Date.now();
    const strong = await containers.runDetached(['sleep', SLEEP]);
    const inspected = JSON.parse(await docker(socketPath, ['inspect', strong])) as { Created: string; Name: string }[];
    writeStoredContainer(stateRoot, {
      version: 1,
      id: strong,
      sessionId,
      name: (inspected[0]?.Name ?? '').replace(/^\//, ''),
      image: 'x',
      createdAtMs: Date.parse(inspected[0]?.Created ?? ''),
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
      'treewarden-test/busybox:1',
      'sleep',
      SLEEP,
    ]);
    containers.track(weak);
    const decoy = await containers.runDetached(['sleep', SLEEP]);
    // Ended after its containers were created (a weak find counts only containers made while it lived).
    const endedAtMs = Date.now();
    writeSession(stateRoot, {
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

    const listed = JSON.parse((await runCli(['orphans', '--json'], env)).stdout) as OrphansJson;
    expect(new Map(listed.containers?.map((c) => [c.id, c.strength]))).toEqual(
      new Map([
        [strong, 'strong'],
        [weak, 'weak'],
      ]),
    );

    const clean = await runCli(['orphans', '--clean', '--grace', '1', '--json'], env);
    const cleaned = JSON.parse(clean.stdout) as OrphansJson;
    expect(new Map(cleaned.containersCleaned?.map((c) => [c.id, c.result]))).toEqual(
      new Map([
        [strong, 'stopped'],
        [weak, 'needs-all'],
      ]),
    );
    const state = async (id: string) => docker(socketPath, ['inspect', '-f', '{{.State.Status}}', id]);
    expect(await state(strong)).toBe('exited');
    expect(await state(weak)).toBe('running');
    // Recorded like a process kill: which container, judged by what identity, who asked, what came of it.
    const stops = readLedger(statePaths(stateRoot).ledgerFile).records.filter((r) => r.kind === 'container_stop');
    expect(stops.map((r) => [r.containerId, r.sessionId, r.result, r.reason, r.by.role, r.strength])).toEqual([
      [strong, sessionId, 'stopped', 'agent_container_clean', 'cli', 'strong'],
    ]);

    const all = JSON.parse(
      (await runCli(['orphans', '--clean', '--all', '--grace', '1', '--json'], env)).stdout,
    ) as OrphansJson;
    expect(all.containersCleaned?.map((c) => [c.id, c.result])).toEqual([[weak, 'stopped']]);
    expect(await state(weak)).toBe('exited');
    expect(await state(decoy)).toBe('running');
  });
});
