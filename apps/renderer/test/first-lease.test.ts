import { describe, expect, it } from 'vitest';
import { firstLease } from '../src/model/first-lease';
import { useAppStore } from '../src/store/store';
import { makeLease, makeSnapshot, NOW, resetStoreEachTest } from './fixtures';

resetStoreEachTest();

const dead = makeLease({ id: 'dead-newest', createdAtMs: NOW - 1_000, liveCount: 0, leakedCount: 0, runs: [] });
const live = makeLease({ id: 'live', createdAtMs: NOW - 50_000, liveCount: 2, leakedCount: 0 });
const leaking = makeLease({ id: 'leaking', createdAtMs: NOW - 90_000, liveCount: 0, leakedCount: 4 });

describe('the first screen', () => {
  it('opens on a leaking lease before a live one, and a live one before the newest dead one', () => {
    expect(firstLease([dead, live, leaking])?.id).toBe('leaking');
    expect(firstLease([dead, live])?.id).toBe('live');
    expect(firstLease([makeLease({ id: 'older', createdAtMs: NOW - 9_000, liveCount: 0 }), dead])?.id).toBe(
      'dead-newest',
    );
    expect(firstLease([])).toBeNull();
  });

  it('selects that lease on the first snapshot and keeps the user selection afterwards', () => {
    useAppStore.getState().applySnapshot(makeSnapshot({ leases: [dead, live, leaking] }));
    expect(useAppStore.getState().selectedLeaseId).toBe('leaking');
    useAppStore.getState().selectLease('dead-newest');
    useAppStore.getState().applySnapshot(makeSnapshot({ leases: [dead, live, leaking] }));
    expect(useAppStore.getState().selectedLeaseId).toBe('dead-newest');
  });
});
