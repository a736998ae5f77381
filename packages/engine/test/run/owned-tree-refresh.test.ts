/**
 * The run's owned-tree refresh reads the owned trees only, and the owner must take it as a
 * partial read. Taken as a whole-machine read it replaced the owner's last whole read, where the
 * caller's own group is looked up off Linux (no /proc to read it from); a tree read does not hold
 * the caller, so the caller's group became signallable. Injected tables: a caller that joined an
 * owned group without descending from it (the second command of a shell pipeline) cannot be made
 * from Node, and the lookup in question is the off-Linux one.
 */
import { describe, expect, it } from 'vitest';
import { killOwnedTree } from '../../src/kill/owner-kill.js';
import { createTreeOwner } from '../../src/ownership/tree-owner.js';
import { ownedTreeRefresh } from '../../src/run/observe-loop.js';
import { filterTrees } from '../../src/table/trees.js';
import type { TableReader } from '../../src/table/types.js';
import { createFakeSignals, createFakeWorld, fakeTable } from '../helpers/index.js';

const ROOT = { pid: 40100, startTime: 'st-40100' };

/** Root 40100 leads its session and group; the caller joined that group; the root has one child there. */
function setup() {
  const world = createFakeWorld([
    { pid: 1, ppid: 0, pgid: 1 },
    { pid: 40100, ppid: 900, pgid: 40100 },
    { pid: 40101, ppid: 40100, pgid: 40100, sid: 40100 },
    { pid: process.pid, ppid: 900, pgid: 40100, sid: 40100 },
  ]);
  const reader: TableReader = {
    platform: 'darwin',
    readAll: async () => fakeTable(world.processes),
    readTrees: async (roots) => filterTrees(fakeTable(world.processes), roots),
  };
  const signals = createFakeSignals(world, { ignoreTerm: true });
  // callerGroup null: looked up in the owner's last whole read, as off Linux.
  const owner = createTreeOwner(ROOT, { reader, signals, callerGroup: null });
  return { owner, reader, signals };
}

describe('the owned-tree refresh', () => {
  it("is a partial read: the caller's own group stays out of the graceful roots after it", async () => {
    const { owner, reader } = setup();
    await owner.observe();
    const rootAlone = { groups: [], processes: [ROOT] };
    expect(owner.gracefulRoots()).toEqual(rootAlone);
    const table = await ownedTreeRefresh(owner, reader)();
    expect([...(table?.entries.keys() ?? [])].sort()).toEqual([40100, 40101]);
    expect(owner.gracefulRoots()).toEqual(rootAlone);
  });

  it("never signals the caller's own group in a kill that follows a refresh", async () => {
    const { owner, reader, signals } = setup();
    await owner.observe();
    await ownedTreeRefresh(owner, reader)();
    await killOwnedTree(owner, { graceMs: 0, attempts: 1, verifyTimeoutMs: 0 });
    expect(signals.calls.filter((call) => call.kind === 'group')).toEqual([]);
    expect(signals.calls.map((call) => call.target)).toContain(40101);
  });
});
