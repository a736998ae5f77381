import { describe, expect, it } from 'vitest';
import { createLinuxReader } from '../../src/table/linux-reader.js';
import type { ProcessIdentity } from '../../src/table/types.js';
import { isRunning, pollUntil, readReportedPids, useProcessTracker } from '../helpers/index.js';
import { nodeFixture, startTracked, useFixtureEnv } from './run-helpers.js';

describe('run tree observation', () => {
  const tracker = useProcessTracker();
  const fixtureEnv = useFixtureEnv();

  it('reports the owned tree as it grows, through the periodic owned-tree refresh', async () => {
    const { reportFile, env } = fixtureEnv();
    const run = startTracked(tracker, { ...nodeFixture('spawn-children.mjs', ['2', 'run-forever.mjs']), env });
    let latest: readonly ProcessIdentity[] = [];
    const firstEvents: string[] = [];
    run.subscribe((event) => {
      if (event.type === 'members') latest = event.members;
      else if (event.type === 'phase') firstEvents.push(event.phase);
      else if (event.type === 'spawned') firstEvents.push(`spawned ${event.identity.pid}`);
    });
    const [parent] = await readReportedPids(tracker, reportFile, 1, { role: 'parent' });
    const children = (parent?.children as number[]) ?? [];
    await pollUntil(() => children.every((pid) => latest.some((member) => member.pid === pid)), {
      description: 'both children among the observed members',
    });
    expect(latest.map((member) => member.pid)).toContain(run.identity?.pid);
    // Raised inside startRun, yet delivered to a listener subscribed right after it returned.
    expect(firstEvents.slice(0, 2).sort()).toEqual(['running', `spawned ${run.identity?.pid}`].sort());
    run.cancel();
    expect((await run.outcome).classification).toBe('cancelled');
  });

  it('reads the identity later through the platform reader where /proc gives none synchronously', async () => {
    const { reportFile, env } = fixtureEnv();
    const run = startTracked(
      tracker,
      { ...nodeFixture('spawn-children.mjs', ['1', 'run-forever.mjs']), env },
      { readEntry: () => null, reader: createLinuxReader() },
    );
    expect(run.identity).toBeNull();
    const [parent] = await readReportedPids(tracker, reportFile, 1, { role: 'parent' });
    tracker.trackGroup(parent?.pid ?? -1);
    await pollUntil(() => run.identity !== null, { description: 'the identity to be read' });
    expect(run.identity?.pid).toBe(parent?.pid);
    run.cancel();
    const outcome = await run.outcome;
    expect(outcome.classification).toBe('cancelled');
    for (const pid of [parent?.pid ?? -1, ...((parent?.children as number[]) ?? [])])
      expect(isRunning(pid)).toBe(false);
  });
});
