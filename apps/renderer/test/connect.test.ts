import { describe, expect, it } from 'vitest';
import { useAppStore } from '../src/store/store';
import { buildWebSocketUrl, routeEvent } from '../src/transport/connect';
import { makeKillReport, makeProcess, makeSnapshot, resetStoreEachTest } from './fixtures';

resetStoreEachTest();

describe('routeEvent', () => {
  it('applies snapshots and keeps the selected lease when it still exists', () => {
    routeEvent(useAppStore, { type: 'snapshot', snapshot: makeSnapshot() });
    expect(useAppStore.getState().selectedLeaseId).toBe('lease-1');
    expect(useAppStore.getState().snapshot?.counts.live).toBe(1);
  });

  it('applies system diffs only while the system view watches', () => {
    const diff = { type: 'systemDiff' as const, full: true, upserts: [makeProcess({ pid: 7 })], removed: [] };
    routeEvent(useAppStore, diff);
    expect(useAppStore.getState().system.size).toBe(0);
    useAppStore.getState().setSystemWatched(true);
    routeEvent(useAppStore, diff);
    expect(useAppStore.getState().system.size).toBe(1);
  });

  it('records a run ending with its classification', () => {
    routeEvent(useAppStore, { type: 'runEnded', runId: 'run-1', classification: 'timeout', exitCode: null });
    expect(useAppStore.getState().outcomes[0]).toMatchObject({
      kind: 'runEnded',
      classification: 'timeout',
      ok: false,
    });
  });

  it('keeps one outcome when the same kill arrives as a reply and as an event', () => {
    const report = makeKillReport();
    useAppStore.getState().pushOutcome({
      kind: 'kill',
      ok: true,
      title: 'mine',
      message: null,
      classification: null,
      reports: [report],
      runId: 'run-1',
    });
    routeEvent(useAppStore, { type: 'killOutcome', runId: 'run-1', report });
    expect(useAppStore.getState().outcomes).toHaveLength(1);
    expect(useAppStore.getState().outcomes[0]?.title).toBe('mine');
  });
});

describe('buildWebSocketUrl', () => {
  it('carries the token to the socket on the page host', () => {
    expect(buildWebSocketUrl({ protocol: 'http:', host: '127.0.0.1:4000' }, 'a+b')).toBe(
      'ws://127.0.0.1:4000/ws?token=a%2Bb',
    );
  });

  it('gives null without a token or over file://', () => {
    expect(buildWebSocketUrl({ protocol: 'http:', host: '127.0.0.1:4000' }, null)).toBeNull();
    expect(buildWebSocketUrl({ protocol: 'http:', host: '127.0.0.1:4000' }, '')).toBeNull();
    expect(buildWebSocketUrl({ protocol: 'file:', host: '' }, 'x')).toBeNull();
  });
});
