/**
 * A snapshot comes every poll, all new objects even where nothing changed. The store keeps the
 * parts that read as before, so a selector of an unchanged part (the orphans, the sessions, a
 * lease) returns the same object and its component does not re-render each second.
 */
import { describe, expect, it } from 'vitest';
import { shareUnchanged } from '../src/model/share-unchanged';
import { useAppStore } from '../src/store/store';
import { makeLease, makeProcess, makeSession, makeSnapshot, NOW, resetStoreEachTest } from './fixtures';

resetStoreEachTest();

describe('a snapshot that reads as before', () => {
  it('keeps the objects of every unchanged part; what changed is new', () => {
    const orphan = {
      runId: 'run-old',
      leaseId: 'lease-1',
      kind: 'over' as const,
      reasons: ['carries the cookie of an ended run'],
      process: makeProcess({ pid: 300 }),
    };
    const first = makeSnapshot({
      leases: [makeLease({ id: 'a' }), makeLease({ id: 'b' })],
      sessions: [makeSession()],
      orphans: [orphan],
    });
    useAppStore.getState().applySnapshot(first);
    const before = useAppStore.getState().snapshot;
    if (!before) throw new Error('no snapshot');
    // The next poll: a copy (new objects throughout), a later time, and one lease whose count moved.
    const next = structuredClone(first);
    next.takenAtMs = NOW + 1000;
    (next.leases[1] as (typeof next.leases)[number]).liveCount += 1;
    useAppStore.getState().applySnapshot(next);
    const after = useAppStore.getState().snapshot;
    if (!after) throw new Error('no snapshot');
    expect(after).not.toBe(before);
    expect(after.takenAtMs).toBe(NOW + 1000);
    expect(after.orphans).toBe(before.orphans);
    expect(after.sessions).toBe(before.sessions);
    expect(after.counts).toBe(before.counts);
    expect(after.leases).not.toBe(before.leases);
    expect(after.leases[0]).toBe(before.leases[0]);
    expect(after.leases[1]).not.toBe(before.leases[1]);
    expect(after.leases[1]?.liveCount).toBe((before.leases[1]?.liveCount ?? 0) + 1);
    expect(after.leases[1]?.runs).toBe(before.leases[1]?.runs);
    expect(after).toEqual(next);
  });

  it('shares by value only: a key or element that came or went makes the part new', () => {
    const previous = { a: [1, 2], b: { c: 1 }, d: undefined as number | undefined };
    expect(shareUnchanged(previous, { a: [1, 2], b: { c: 1 }, d: undefined })).toBe(previous);
    const shorter = shareUnchanged(previous, { a: [1], b: { c: 1 }, d: undefined });
    expect(shorter.a).toEqual([1]);
    expect(shorter.b).toBe(previous.b);
    const fewer = shareUnchanged({ x: 1, y: undefined } as Record<string, unknown>, { x: 1 });
    expect(fewer).toEqual({ x: 1 });
    expect(Object.keys(fewer)).toEqual(['x']);
    expect(shareUnchanged(previous.b, null)).toBeNull();
    expect(shareUnchanged([1], { 0: 1 })).toEqual({ 0: 1 });
    expect(Array.isArray(shareUnchanged({ 0: 1 }, [1]))).toBe(true);
  });
});
