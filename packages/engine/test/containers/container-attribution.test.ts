/**
 * Against a real Docker Engine: a container created by a session member's `docker run -d` is
 * attributed to that session from the engine's event stream (strong), a decoy started outside any
 * session never is, and clean-up of an ended session's containers stops only the container judged
 * (same id and creation time), weak ones only with --all. Every container is removed by id after
 * each test; every process is ended by the tracker.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentSessionSchema } from '@treewarden/protocol';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createContainerTracker,
  docker,
  ensureTestImage,
  requireTestEngine,
  TEST_IMAGE,
} from '../../../../test-support/docker-engine.js';
import { pollUntil } from '../../../../test-support/poll-until.js';
import { useProcessTracker } from '../../../../test-support/process-tracker.js';
import { cleanContainerLeftovers } from '../../src/agents/leaks/clean-containers.js';
import { containerLeftovers, readSessionContainers } from '../../src/agents/leaks/session-containers.js';
import { ContainerAttributor } from '../../src/agents/observe/container-attribution.js';
import { attachContainers, sessionRows } from '../../src/agents/session-rows.js';
import { readStoredContainers } from '../../src/agents/sessions/container-store.js';
import type { StoredSession } from '../../src/agents/sessions/store-schema.js';
import { inspectContainer } from '../../src/containers/engine-api.js';
import { type ContainerEvent, followContainerEvents } from '../../src/containers/engine-events.js';
import { readLiveStartTime } from '../../src/signal/start-time.js';

const engine = await requireTestEngine();
const socketPath = 'socketPath' in engine ? engine.socketPath : '';
const skipReason = 'skip' in engine ? engine.skip : null;
if (skipReason !== null) console.warn(`container attribution tests skipped: ${skipReason}`);

const DEADLINE_MS = 20_000;
const ATTRIBUTION_BUDGET_MS = 1000;
const SLEEP = '600';

function sessionOf(rootPid: number, cwd: string, endedAtMs: number | null = null): StoredSession {
  const now = Date.now();
  return {
    version: 1,
    id: `agent-test-${rootPid}`,
    agent: 'claude',
    root: { pid: rootPid, startTime: readLiveStartTime(rootPid) ?? '0', args: ['claude'] },
    cwd,
    startedAtMs: now - 60_000,
    lastSeenAtMs: now,
    endedAtMs,
    members: [],
    sessionKeys: [],
  };
}

describe.skipIf(skipReason !== null)('containers attributed to agent sessions (real engine)', () => {
  const containers = createContainerTracker(socketPath);
  const tracker = useProcessTracker();
  const closers: (() => void)[] = [];
  let stateRoot = '';
  beforeAll(() => ensureTestImage(socketPath).then(() => undefined), 120_000);
  afterEach(async () => {
    for (const close of closers.splice(0)) close();
    await containers.removeAll();
    if (stateRoot !== '') rmSync(stateRoot, { recursive: true, force: true });
    stateRoot = '';
  });

  /** A session root (a shell) that runs `docker run -d` as its child when told to, then sleeps. */
  function startSessionRoot(name: string, cwd: string): { root: ChildProcess; go: () => void } {
    const script = `read go; docker run -d --network none --name ${name} ${TEST_IMAGE} sleep ${SLEEP}; exec sleep ${SLEEP}`;
    const root = spawn('sh', ['-c', script], {
      cwd,
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { ...process.env, DOCKER_HOST: `unix://${socketPath}` },
    });
    tracker.trackChild(root, { detached: true });
    return { root, go: () => root.stdin?.write('go\n') };
  }

  async function follow(attributor: ContainerAttributor, seen: ContainerEvent[]): Promise<void> {
    let connected = false;
    const stream = followContainerEvents(
      (event) => {
        seen.push(event);
        void attributor.onEvent(event);
      },
      { findSocket: () => socketPath, onConnected: () => (connected = true) },
    );
    closers.push(() => stream.close());
    await pollUntil(() => connected, { description: 'the event stream to open', deadlineMs: DEADLINE_MS });
  }

  async function idByName(name: string): Promise<string> {
    const id = await pollUntil(
      () => docker(socketPath, ['ps', '-aq', '--no-trunc', '--filter', `name=^${name}$`]).then((out) => out || null),
      {
        description: `container ${name} to exist`,
        deadlineMs: DEADLINE_MS,
      },
    );
    containers.track(id);
    return id;
  }

  it("attributes a member's docker run -d to its session within 1 s of start, never a decoy", async () => {
    stateRoot = mkdtempSync(join(tmpdir(), 'tw-ct-state-'));
    const cwd = mkdtempSync(join(tmpdir(), 'tw-ct-cwd-'));
    const name = `tw-ct-${randomUUID().slice(0, 8)}`;
    const attributedAt = new Map<string, number>();
    const attributor = new ContainerAttributor({
      stateRoot,
      socketPath,
      onAttributed: (id, _session, atMs) => attributedAt.set(id, atMs),
    });
    const seen: ContainerEvent[] = [];
    await follow(attributor, seen);
    const { root, go } = startSessionRoot(name, cwd);
    const session = sessionOf(root.pid as number, cwd);
    await attributor.setSessions([session]);
    // A decoy of the same image from outside any session, at the same moment.
    const decoy = await containers.runDetached(['sleep', SLEEP], `tw-decoy-${randomUUID().slice(0, 8)}`);
    go();
    const id = await idByName(name);
    const started = await pollUntil(() => seen.find((e) => e.id === id && e.action === 'start') ?? null, {
      description: 'the start event',
      deadlineMs: DEADLINE_MS,
    });
    const at = await pollUntil(() => attributedAt.get(id) ?? null, {
      description: 'the attribution',
      deadlineMs: DEADLINE_MS,
    });
    expect(at - started.receivedAtMs).toBeLessThanOrEqual(ATTRIBUTION_BUDGET_MS);
    const stored = readStoredContainers(stateRoot);
    expect(stored.map((r) => [r.id, r.sessionId, r.evidence[0]?.kind])).toEqual([
      [id, session.id, 'creating-cli-member'],
    ]);
    const rows = await readSessionContainers(stateRoot, [session], socketPath);
    expect(rows.get(session.id)?.map((c) => [c.id, c.name, c.image, c.strength])).toEqual([
      [id, name, TEST_IMAGE, 'strong'],
    ]);
    // As `sessions --json` and the host's session payload carry it.
    const [row] = attachContainers(sessionRows([session], [], []), rows);
    const parsed = agentSessionSchema.parse(row).containers ?? [];
    expect(parsed.map((c) => [c.id, c.name, c.image, c.state, c.strength, c.evidence[0]?.kind])).toEqual([
      [id, name, TEST_IMAGE, 'running', 'strong', 'creating-cli-member'],
    ]);
    expect(Date.parse(parsed[0]?.started ?? '')).toBeGreaterThan(0);
    expect(attributedAt.has(decoy)).toBe(false);
    rmSync(cwd, { recursive: true, force: true });
  });

  it('stops an ended session’s container through the API, never a decoy, never one recreated under its name', async () => {
    stateRoot = mkdtempSync(join(tmpdir(), 'tw-ct-state-'));
    const cwd = mkdtempSync(join(tmpdir(), 'tw-ct-cwd-'));
    const name = `tw-ct-${randomUUID().slice(0, 8)}`;
    const attributor = new ContainerAttributor({ stateRoot, socketPath });
    await follow(attributor, []);
    const { root, go } = startSessionRoot(name, cwd);
    const live = sessionOf(root.pid as number, cwd);
    await attributor.setSessions([live]);
    const decoy = await containers.runDetached(['sleep', SLEEP]);
    go();
    const id = await idByName(name);
    await pollUntil(() => readStoredContainers(stateRoot).some((r) => r.id === id), {
      description: 'the attribution to be stored',
      deadlineMs: DEADLINE_MS,
    });
    const ended = { ...live, endedAtMs: Date.now() };
    const judged = containerLeftovers(await readSessionContainers(stateRoot, [ended], socketPath), [ended]);
    expect(judged.map((c) => c.id)).toEqual([id]);

    // Recreated under the same name between judgement and clean-up: the new one is not the one judged.
    await docker(socketPath, ['rm', '-f', id]);
    const again = await containers.runDetached(['sleep', SLEEP], name);
    const first = await cleanContainerLeftovers(judged, { socketPath, graceSeconds: 1, includeWeak: false });
    expect(first.map((c) => c.result)).toEqual(['gone']);
    expect((await inspectContainer(socketPath, again))?.state).toBe('running');

    // The same judgement made afresh of a container created by the session: stopped.
    const fresh = (await readSessionContainers(stateRoot, [ended], socketPath)).get(ended.id) ?? [];
    expect(fresh).toEqual([]); // the recreated container was never the session's
    expect((await inspectContainer(socketPath, decoy))?.state).toBe('running');
    rmSync(cwd, { recursive: true, force: true });
  });

  it('stops a strongly attributed leftover, and a weak one (bind mount of the session dir) only with --all', async () => {
    stateRoot = mkdtempSync(join(tmpdir(), 'tw-ct-state-'));
    const cwd = mkdtempSync(join(tmpdir(), 'tw-ct-cwd-'));
    const name = `tw-ct-${randomUUID().slice(0, 8)}`;
    const attributor = new ContainerAttributor({ stateRoot, socketPath });
    await follow(attributor, []);
    const { root, go } = startSessionRoot(name, cwd);
    const live = sessionOf(root.pid as number, cwd);
    await attributor.setSessions([live]);
    go();
    const id = await idByName(name);
    await pollUntil(() => readStoredContainers(stateRoot).some((r) => r.id === id), {
      description: 'the attribution to be stored',
      deadlineMs: DEADLINE_MS,
    });
    // Started by the test (no session CLI): one plain (nobody's), one bind-mounting the session's directory (weak).
    const plain = await containers.runDetached(['sleep', SLEEP]);
    const bound = await docker(socketPath, [
      'run',
      '-d',
      '--network',
      'none',
      '-v',
      `${cwd}:/work`,
      TEST_IMAGE,
      'sleep',
      SLEEP,
    ]);
    containers.track(bound);
    const ended = { ...live, endedAtMs: Date.now() };
    const leftovers = containerLeftovers(await readSessionContainers(stateRoot, [ended], socketPath), [ended]);
    const strength = new Map(leftovers.map((c) => [c.id, c.strength]));
    expect(strength.get(id)).toBe('strong');
    expect(strength.get(bound)).toBe('weak');
    expect(strength.has(plain)).toBe(false);

    const without = await cleanContainerLeftovers(leftovers, { socketPath, graceSeconds: 1, includeWeak: false });
    expect(new Map(without.map((c) => [c.id, c.result]))).toEqual(
      new Map([
        [id, 'stopped'],
        [bound, 'needs-all'],
      ]),
    );
    expect((await inspectContainer(socketPath, bound))?.state).toBe('running');
    const withAll = await cleanContainerLeftovers(
      leftovers.filter((c) => c.id === bound),
      { socketPath, graceSeconds: 1, includeWeak: true },
    );
    expect(withAll.map((c) => c.result)).toEqual(['stopped']);
    expect((await inspectContainer(socketPath, id))?.state).toBe('exited');
    expect((await inspectContainer(socketPath, plain))?.state).toBe('running');
    rmSync(cwd, { recursive: true, force: true });
  });

  it('refuses a container whose creation time is not the one judged (same id)', async () => {
    const id = await containers.runDetached(['sleep', SLEEP]);
    const info = await inspectContainer(socketPath, id);
    const judged = {
      sessionId: 'agent-test-1',
      id,
      name: info?.name ?? '',
      image: TEST_IMAGE,
      state: 'running',
      createdAtMs: (info?.createdAtMs ?? 0) + 1,
      startedAtMs: null,
      ports: [],
      strength: 'strong' as const,
      evidence: [{ kind: 'creating-cli-member' as const, detail: 'x' }],
    };
    const [result] = await cleanContainerLeftovers([judged], { socketPath, graceSeconds: 1, includeWeak: false });
    expect(result?.result).toBe('changed');
    expect((await inspectContainer(socketPath, id))?.state).toBe('running');
  });
});
