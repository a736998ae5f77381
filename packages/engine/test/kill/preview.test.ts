/**
 * The kill preview lists exactly what killTree would end, over real processes, and signals
 * nothing: the tree by identity, plus a process outside it that carries the run cookie (only when
 * the cookie is given, as the kill uses it); a start time that does not match the live pid is
 * refused, as the kill refuses it. After the preview every process is still running, and the kill
 * then ends the same set.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { killTree } from '../../src/kill/kill-tree.js';
import { previewKill } from '../../src/kill/preview.js';
import { RUN_ID_ENV } from '../../src/run/types.js';
import {
  identityOf,
  isRunning,
  pollUntil,
  readReportedPids,
  spawnFixture,
  useProcessTracker,
} from '../helpers/index.js';

describe('kill preview', () => {
  const tracker = useProcessTracker();

  it('lists the tree and the cookie escapee, signals nothing, and matches what the kill ends', async () => {
    const runId = randomUUID();
    const env = { [RUN_ID_ENV]: runId };
    const tree = spawnFixture(tracker, 'spawn-children.mjs', ['2', 'run-forever.mjs'], { detached: true, env });
    const [parent] = await readReportedPids(tracker, tree.reportFile, 1, { role: 'parent' });
    const children = (parent?.children as number[]) ?? [];
    // Not a descendant: started apart, in its own session, with the same cookie.
    const outside = spawnFixture(tracker, 'run-forever.mjs', ['outside'], { detached: true, env });
    await pollUntil(() => [tree.pid, outside.pid, ...children].every((pid) => isRunning(pid)) || null, {
      description: 'the tree and the escapee running',
    });
    const root = identityOf(tree.pid);

    const byTree = await previewKill(root);
    expect(byTree.refused).toBeNull();
    expect(byTree.members.map((member) => member.pid).sort()).toEqual([tree.pid, ...children].sort());
    expect(byTree.members[0]?.pid).toBe(tree.pid);

    const withCookie = await previewKill(root, { runId });
    expect(withCookie.members.map((member) => member.pid).sort()).toEqual([tree.pid, ...children, outside.pid].sort());
    expect([tree.pid, outside.pid, ...children].every((pid) => isRunning(pid))).toBe(true);

    const stale = await previewKill({ pid: tree.pid, startTime: '1' }, { runId });
    expect(stale.refused).not.toBeNull();
    expect(stale.members).toEqual([]);

    const outcome = await killTree(root, { runId, graceMs: 0 });
    expect(outcome.killed.map((member) => member.pid).sort()).toEqual(withCookie.members.map((m) => m.pid).sort());
  });
});
