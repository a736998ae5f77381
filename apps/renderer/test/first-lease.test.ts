import { describe, expect, it } from 'vitest';
import { firstLease } from '../src/model/first-lease';
import { AWAITED_LEASE_SNAPSHOTS } from '../src/store/slices';
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

  it('keeps a run just started in a new lease selected while the snapshot in flight lacks it', () => {
    const store = useAppStore.getState();
    store.applySnapshot(makeSnapshot({ leases: [dead, live] }));
    // A scenario started: its reply names a lease the next snapshot was built too early to hold.
    store.selectRun('run-new', 'lease-new');
    store.applySnapshot(makeSnapshot({ leases: [dead, live] }));
    expect(useAppStore.getState().selectedLeaseId).toBe('lease-new');
    expect(useAppStore.getState().selectedRunId).toBe('run-new');
    const arrived = makeLease({ id: 'lease-new', createdAtMs: NOW, liveCount: 1 });
    store.applySnapshot(makeSnapshot({ leases: [dead, live, arrived] }));
    expect(useAppStore.getState().selectedLeaseId).toBe('lease-new');
    expect(useAppStore.getState().awaitedLease).toBeNull();
    // Once shown, a lease that goes away is let go at once, as before.
    store.applySnapshot(makeSnapshot({ leases: [dead, live] }));
    expect(useAppStore.getState().selectedLeaseId).toBe('live');
  });

  it('lets go of a chosen lease that never shows, after a bounded number of snapshots', () => {
    const store = useAppStore.getState();
    store.selectLease('never-there');
    for (let i = 0; i < AWAITED_LEASE_SNAPSHOTS; i += 1) {
      store.applySnapshot(makeSnapshot({ leases: [dead, live] }));
      expect(useAppStore.getState().selectedLeaseId).toBe('never-there');
    }
    store.applySnapshot(makeSnapshot({ leases: [dead, live] }));
    expect(useAppStore.getState().selectedLeaseId).toBe('live');
  });
});
