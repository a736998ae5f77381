/**
 * Signalling on a read of the owned trees instead of the whole machine (ownership/tree-view.ts).
 * A group in a session whose leader is owned can only hold descendants of our tree, so it is
 * signalled after a tree read alone; a group in a session led by someone else may hold a stranger
 * that no tree read shows, so the signal falls back to the whole-machine read, which refuses it.
 * The reader here serves tree reads as real readers do (only the roots and their descendants) and
 * counts whole-machine reads.
 */
import { describe, expect, it } from 'vitest';
import { killOwnedTree } from '../../src/kill/owner-kill.js';
import { createTreeOwner } from '../../src/ownership/tree-owner.js';
import { filterTrees } from '../../src/table/trees.js';
import type { TableReader } from '../../src/table/types.js';
import { createFakeSignals, createFakeWorld, type FakeProcess, fakeTable } from '../helpers/index.js';

const CALLER_GROUP = 999;
const ROOT = { pid: 40100, startTime: 'st-40100' };

function setup(processes: FakeProcess[]) {
  const world = createFakeWorld(processes);
  let wholeReads = 0;
  const reader: TableReader = {
    platform: 'linux',
    readAll: async () => {
      wholeReads += 1;
      return fakeTable(world.processes);
    },
    readTrees: async (roots) => filterTrees(fakeTable(world.processes), roots),
  };
  const signals = createFakeSignals(world);
  const owner = createTreeOwner(ROOT, { reader, signals, callerGroup: CALLER_GROUP });
  return { world, signals, owner, wholeReads: () => wholeReads };
}

describe('signalling on the owned-tree view', () => {
  it('ends a tree whose sessions are led by owned members without reading the whole machine', async () => {
    // Root leads session 40100; 40102 escaped into its own session with a child.
    const { signals, owner, wholeReads } = setup([
      { pid: 40100, ppid: 900, pgid: 40100, sid: 40100 },
      { pid: 40101, ppid: 40100, pgid: 40100, sid: 40100 },
      { pid: 40102, ppid: 40100, pgid: 40102, sid: 40102 },
      { pid: 40103, ppid: 40102, pgid: 40102, sid: 40102 },
    ]);
    await owner.observe();
    const before = wholeReads();
    const outcome = await killOwnedTree(owner, { graceMs: 0 });
    expect(outcome.result).toBe('killed');
    expect(wholeReads()).toBe(before);
    expect(signals.calls.filter((call) => call.signal === 'SIGKILL')).toEqual([
      { kind: 'group', target: 40102, signal: 'SIGKILL' },
      { kind: 'group', target: 40100, signal: 'SIGKILL' },
    ]);
  });

  it('never group-signals past a stranger the tree read cannot see: falls back to the whole read and refuses', async () => {
    // The root's session is led by a shell it does not own; a stranger of that session sits in
    // the root's group, reparented to 1, so no tree read shows it.
    const { signals, owner, wholeReads } = setup([
      { pid: 500, ppid: 1, pgid: 500, sid: 500 },
      { pid: 40100, ppid: 500, pgid: 40100, sid: 500 },
      { pid: 40101, ppid: 40100, pgid: 40100, sid: 500 },
      { pid: 40150, ppid: 1, pgid: 40100, sid: 500 },
    ]);
    await owner.observeRead('trees');
    const before = wholeReads();
    const outcome = await killOwnedTree(owner, { graceMs: 0 });
    expect(outcome.result).toBe('refused');
    expect(outcome.error).toMatch(/process group 40100 holds live pid 40150 .*that this tree does not own/);
    expect(wholeReads()).toBeGreaterThan(before);
    expect(signals.calls.filter((call) => call.kind === 'group')).toEqual([]);
  });
});
