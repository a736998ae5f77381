/**
 * Resource history of agent sessions, fed by fabricated snapshots through the store: a session's
 * curve is the sum over its members at each snapshot, bounded like a run's, follows members that
 * join and leave, never counts a process that merely reuses a member's pid, and an ended session
 * keeps its last curve while it is shown.
 */
import type { SessionProcess, SessionView } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { RUN_HISTORY_CAPACITY, type Sample } from '../src/model/history';
import { identityKey } from '../src/model/identity';
import { isCurveFinal, sessionHistoryKey } from '../src/model/session-samples';
import { runHistoryKey } from '../src/store/history-slice';
import { useAppStore } from '../src/store/store';
import { makeProcess, makeSession, makeSnapshot, NOW, resetStoreEachTest } from './fixtures';

resetStoreEachTest();

const MIB = 1024 * 1024;
const SESSION = 'claude-code-500-77';

function proc(pid: number, startTime: string, cpuPercent: number, mib: number, state = 'S'): SessionProcess {
  return { ...makeProcess({ pid, startTime, cpuPercent, rssBytes: mib * MIB, state }), role: 'other' };
}

/** One snapshot at `NOW + tick` seconds with these sessions (and the fixtures' usual run). */
function feed(tick: number, sessions: SessionView[]): void {
  useAppStore.getState().applySnapshot(makeSnapshot({ takenAtMs: NOW + tick * 1000, sessions }));
}

function curve(key: string): Sample[] {
  return useAppStore.getState().runHistory.ring(key)?.samples() ?? [];
}

function cpuOf(samples: Sample[]): number[] {
  return samples.map((sample) => Math.round((sample.cpuPercent ?? Number.NaN) * 10) / 10);
}

function mibOf(samples: Sample[]): number[] {
  return samples.map((sample) => sample.memoryBytes / MIB);
}

describe('session resource history', () => {
  it('samples the sum over the root and members at each snapshot', () => {
    for (let tick = 1; tick <= 3; tick += 1)
      feed(tick, [
        makeSession({
          processes: [proc(500, '77', tick, 10), proc(501, '78', 2 * tick, 20), proc(502, '79', 0.5, tick)],
        }),
      ]);
    const samples = curve(sessionHistoryKey(SESSION));
    expect(cpuOf(samples)).toEqual([3.5, 6.5, 9.5]);
    expect(mibOf(samples)).toEqual([31, 32, 33]);
    expect(samples.map((sample) => sample.atMs)).toEqual([NOW + 1000, NOW + 2000, NOW + 3000]);
    // Each member has its own curve too, by identity.
    expect(cpuOf(curve('501:78'))).toEqual([2, 4, 6]);
  });

  it('stays within the same bound as a run curve however long the session lives', () => {
    const passes = RUN_HISTORY_CAPACITY + 50;
    for (let tick = 1; tick <= passes; tick += 1)
      feed(tick, [makeSession({ processes: [proc(500, '77', tick % 7, 10)] })]);
    const samples = curve(sessionHistoryKey(SESSION));
    expect(samples).toHaveLength(RUN_HISTORY_CAPACITY);
    expect(samples[0]?.atMs).toBe(NOW + (passes - RUN_HISTORY_CAPACITY + 1) * 1000);
    expect(samples.at(-1)?.atMs).toBe(NOW + passes * 1000);
  });

  it('follows members that join and leave, and starts a member that left and came back afresh', () => {
    const root = proc(500, '77', 1, 10);
    const mcp = proc(501, '78', 2, 20);
    const dev = proc(502, '79', 4, 40);
    feed(1, [makeSession({ processes: [root] })]);
    feed(2, [makeSession({ processes: [root, mcp] })]);
    feed(3, [makeSession({ processes: [root, mcp, dev] })]);
    feed(4, [makeSession({ processes: [root, dev] })]);
    feed(5, [makeSession({ processes: [root, mcp, dev] })]);
    const samples = curve(sessionHistoryKey(SESSION));
    expect(cpuOf(samples)).toEqual([1, 3, 7, 5, 7]);
    expect(mibOf(samples)).toEqual([10, 30, 70, 50, 70]);
    expect(curve('501:78')).toHaveLength(1);
    expect(curve('502:79')).toHaveLength(3);
  });

  it('never counts a process that only reuses a member pid, a duplicate, or a zombie', () => {
    const members = [proc(500, '77', 1, 10), proc(501, '78', 2, 20)];
    feed(1, [makeSession({ processes: members })]);
    // pid 501 now names another process (new start time): not a member, and not added to 501:78.
    const impostor = proc(501, '999', 50, 500);
    const zombie = proc(502, '79', 30, 300, 'Z');
    feed(2, [
      makeSession({ processes: [members[0] as SessionProcess, impostor, zombie, members[0] as SessionProcess] }),
    ]);
    expect(cpuOf(curve(sessionHistoryKey(SESSION)))).toEqual([3, 1]);
    expect(mibOf(curve(sessionHistoryKey(SESSION)))).toEqual([30, 10]);
    expect(curve('501:78')).toEqual([]);
    expect(curve(identityKey(impostor))).toEqual([]);
  });

  it('keeps two sessions, and a session and a run with the same id, apart', () => {
    const other = makeSession({
      id: 'run-1',
      root: { pid: 600, startTime: '60' },
      members: [],
      processes: [proc(600, '60', 7, 70)],
    });
    feed(1, [makeSession({ processes: [proc(500, '77', 1, 10)] }), other]);
    feed(2, [makeSession({ processes: [proc(500, '77', 1, 10)] }), other]);
    expect(cpuOf(curve(sessionHistoryKey(SESSION)))).toEqual([1, 1]);
    expect(cpuOf(curve(sessionHistoryKey('run-1')))).toEqual([7, 7]);
    // The fixtures' run `run-1` (one process at 1.5 %) keeps its own totals.
    expect(cpuOf(curve(runHistoryKey('run-1')))).toEqual([1.5, 1.5]);
  });

  it('samples the leaked members of an ended session, then keeps its last curve while it is shown', () => {
    const ended = { state: 'ended' as const, endedAt: new Date(NOW).toISOString() };
    feed(1, [makeSession({ processes: [proc(500, '77', 5, 10), proc(501, '78', 2, 20)] })]);
    const leaking = makeSession({ ...ended, leaked: [501], processes: [proc(501, '78', 2, 20)] });
    feed(2, [leaking]);
    expect(isCurveFinal(leaking)).toBe(false);
    const gone = makeSession({ ...ended, processes: [] });
    expect(isCurveFinal(gone)).toBe(true);
    for (let tick = 3; tick <= 6; tick += 1) feed(tick, [gone]);
    const samples = curve(sessionHistoryKey(SESSION));
    expect(cpuOf(samples)).toEqual([7, 2]);
    expect(samples.at(-1)?.atMs).toBe(NOW + 2000);
    // Once the host stops showing it, the curve is dropped.
    feed(7, []);
    expect(curve(sessionHistoryKey(SESSION))).toEqual([]);
    expect(useAppStore.getState().runHistory.ring(sessionHistoryKey(SESSION))).toBeUndefined();
  });
});
