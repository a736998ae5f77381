/**
 * Kills that must not call a tree gone while members live, in the two states where the owner
 * cannot see them yet: children it never observed (a run supervisor between two observe ticks, an
 * owner built from the root alone) whose parent dies on SIGTERM, and children held by a parent
 * whose leader thread already reads as a zombie while its other threads are still exiting.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { killOwnedTree } from '../../src/kill/owner-kill.js';
import { createTreeOwner } from '../../src/ownership/tree-owner.js';
import { createLinuxReader } from '../../src/table/linux-reader.js';
import { readStatFields } from '../../src/table/linux-stat.js';
import type { TableReader } from '../../src/table/types.js';
import {
  identityOf,
  isRunning,
  pollUntil,
  readReportedPids,
  spawnFixture,
  useProcessTracker,
} from '../helpers/index.js';

const GRACE_MS = 300;
const CHILDREN = 2;

/** The host's worker reader offers only these: no readPids, readAdopters or lastAllocatedPid. */
function leanReader(): TableReader {
  const full = createLinuxReader({ cwd: false });
  return { platform: 'linux', readAll: () => full.readAll(), readTrees: (pids) => full.readTrees(pids) };
}

const readers: Record<string, () => TableReader | undefined> = {
  'the platform reader': () => undefined,
  'a reader with only readAll and readTrees': leanReader,
};

describe.runIf(process.platform === 'linux')('a kill before the owner saw the children', () => {
  const tracker = useProcessTracker();

  for (const [readerName, makeReader] of Object.entries(readers)) {
    for (const withCookie of [false, true]) {
      it(`SIGKILLs children that ignore SIGTERM (${readerName}, ${withCookie ? 'with' : 'without'} a run cookie)`, async () => {
        const runId = `unseen-${randomUUID()}`;
        const fixture = spawnFixture(tracker, 'spawn-children.mjs', [String(CHILDREN), 'ignore-sigterm.mjs'], {
          detached: true,
          env: { TREEWARDEN_RUN_ID: runId },
        });
        const reports = await readReportedPids(tracker, fixture.reportFile, CHILDREN, { role: 'ignore-sigterm' });
        const children = reports.map((report) => identityOf(report.pid));
        const reader = makeReader();
        // Built from the root alone and never observed: the children are unknown to it.
        const owner = createTreeOwner(identityOf(fixture.pid), {
          ...(withCookie ? { runId } : {}),
          ...(reader === undefined ? {} : { reader }),
        });
        const outcome = await killOwnedTree(owner, { graceMs: GRACE_MS });
        const alive = children.filter((child) => isRunning(child.pid, child.startTime));
        expect({ result: outcome.result, alive }).toEqual({ result: 'killed', alive: [] });
        expect(outcome.timeline.some((entry) => entry.action === 'SIGKILL')).toBe(true);
      });
    }
  }
});

describe.runIf(process.platform === 'linux')('a parent whose leader thread exited first', () => {
  const tracker = useProcessTracker();

  /** The fixture's leader as a zombie that still holds its child on a live thread. */
  async function zombieLeaderWithChild() {
    const fixture = spawnFixture(tracker, 'leader-exits-first.mjs', [], { detached: true });
    const [leader] = await readReportedPids(tracker, fixture.reportFile, 1, { role: 'leader' });
    await readReportedPids(tracker, fixture.reportFile, 1, { role: 'held' });
    const childPid = leader?.child as number;
    const leaderIdentity = identityOf(fixture.pid);
    await pollUntil(() => readStatFields(fixture.pid)?.state === 'Z', { description: 'the leader thread to exit' });
    return { leader: leaderIdentity, child: identityOf(childPid) };
  }

  it('a tree read lists the children its other threads hold', async () => {
    const { leader, child } = await zombieLeaderWithChild();
    const table = await createLinuxReader({ cwd: false }).readTrees([leader.pid]);
    expect(table?.entries.get(leader.pid)?.state).toBe('Z');
    expect(table?.entries.get(child.pid)?.startTime).toBe(child.startTime);
  });

  for (const graceMs of [0, GRACE_MS]) {
    it(`a kill of it ends the child instead of calling the tree already gone (grace ${graceMs} ms)`, async () => {
      const { leader, child } = await zombieLeaderWithChild();
      const outcome = await killOwnedTree(createTreeOwner(leader), { graceMs });
      expect({ result: outcome.result, childAlive: isRunning(child.pid, child.startTime) }).toEqual({
        result: 'killed',
        childAlive: false,
      });
    });
  }
});
