/**
 * The whole path with a real Docker Engine and a recognised fake Claude session: the watcher
 * follows the engine's events, a member shell's `docker run -d` is attributed to the session
 * (strong) and listed among its containers — what the host's session payload carries — while a
 * decoy started by the test at the same moment is not.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createContainerTracker,
  docker,
  ensureTestImage,
  requireTestEngine,
  TEST_IMAGE,
} from '../../../../test-support/docker-engine.js';
import { startToolsAgent } from '../../../../test-support/fake-tools.js';
import { makeTempDir, pollUntil, useProcessTracker } from '../../../../test-support/index.js';
import { markerReaderFor } from '../../src/agents/observe/observe.js';
import { type AgentWatcher, createAgentWatcher } from '../../src/agents/observe/watcher.js';
import { loadAgentRules } from '../../src/agents/rules/rules.js';

const engine = await requireTestEngine();
const socketPath = 'socketPath' in engine ? engine.socketPath : '';
const skipReason = 'skip' in engine ? engine.skip : null;
if (skipReason !== null) console.warn(`watcher container tests skipped: ${skipReason}`);

const DEADLINE_MS = 30_000;

describe.skipIf(skipReason !== null)('the watcher attributes a session member’s container', () => {
  const containers = createContainerTracker(socketPath);
  const tracker = useProcessTracker();
  let watcher: AgentWatcher | null = null;
  beforeAll(() => ensureTestImage(socketPath).then(() => undefined), 120_000);
  afterEach(async () => {
    watcher?.close();
    watcher = null;
    await containers.removeAll();
  });

  it('lists a member’s docker run -d under its session as strong, never the decoy', async () => {
    const stateRoot = makeTempDir();
    const trigger = join(makeTempDir(), 'go');
    const name = `tw-wc-${randomUUID().slice(0, 8)}`;
    const agent = await startToolsAgent(tracker, { dockerRun: { trigger, name, image: TEST_IMAGE, socketPath } });
    const { rules } = loadAgentRules(stateRoot);
    let connected = false;
    const created = createAgentWatcher({
      stateRoot,
      rules,
      readMarkers: markerReaderFor(rules),
      fullScanIntervalMs: 0,
      engineSocket: socketPath,
      onEngineConnected: () => (connected = true),
    });
    watcher = created;
    const session = await pollUntil(
      () => created.tick().observation.live.find((s) => s.root.pid === agent.rootPid) ?? null,
      { description: 'the fake session to be recognised', deadlineMs: DEADLINE_MS },
    );
    await pollUntil(() => connected, { description: 'the event stream to open', deadlineMs: DEADLINE_MS });
    const decoy = await containers.runDetached(['sleep', '600']);
    writeFileSync(trigger, '');
    const id = await pollUntil(
      () => docker(socketPath, ['ps', '-aq', '--no-trunc', '--filter', `name=^${name}$`]).then((out) => out || null),
      { description: `container ${name}`, deadlineMs: DEADLINE_MS },
    );
    containers.track(id);
    const listed = await pollUntil(
      () => {
        created.tick();
        const mine = created.containers().get(session.id) ?? [];
        return mine.some((c) => c.id === id) ? mine : null;
      },
      { description: 'the container under its session', deadlineMs: DEADLINE_MS, intervalMs: 200 },
    );
    expect(listed.map((c) => [c.id, c.name, c.strength, c.evidence[0]?.kind])).toEqual([
      [id, name, 'strong', 'creating-cli-member'],
    ]);
    for (const [, list] of created.containers()) expect(list.some((c) => c.id === decoy)).toBe(false);
  });
});
