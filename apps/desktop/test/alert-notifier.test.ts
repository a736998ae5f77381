/**
 * The desktop app's pile-up notifications, decided in plain Node: the first snapshot is the
 * baseline; each alert id of a live session is told once, however many snapshots repeat it; a
 * snapshot without sessions (an older host) tells nothing. Fixture snapshots: the alert judgement
 * itself is tested over real processes where it lives.
 */
import type { AlertNotice, SessionAlert, SessionView, Snapshot } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { createAlertNotifier } from '../src/node/alert-notifier.js';

const T0 = 1_700_000_000_000;

function alert(id: string): SessionAlert {
  return {
    id,
    kind: 'stale-subagents',
    pids: [601, 602],
    processes: [
      { pid: 601, startTime: '6011' },
      { pid: 602, startTime: '6021' },
    ],
    why: '2 subagents idle for 30m under a parent that no longer reads them',
    since: new Date(T0).toISOString(),
  };
}

function session(alerts: SessionAlert[]): SessionView {
  return {
    id: 'claude-code-600-1',
    agent: 'claude-code',
    state: 'live',
    root: { pid: 600, startTime: '1' },
    cwd: '/home/ana/proj',
    startedAt: new Date(T0).toISOString(),
    endedAt: null,
    members: [],
    leaked: [],
    processes: [],
    rssBytes: 0,
    alerts,
  };
}

function snapshot(sessions?: SessionView[]): Snapshot {
  return {
    takenAtMs: T0,
    pollIntervalMs: 1000,
    leases: [],
    orphans: [],
    counts: { live: 0, leaked: 0 },
    ...(sessions === undefined ? {} : { sessions }),
  };
}

describe('desktop alert notifier', () => {
  it('tells each new alert of a live session once, after the baseline', () => {
    const shown: AlertNotice[] = [];
    const notifier = createAlertNotifier((notice) => shown.push(notice));
    notifier.onSnapshot(snapshot([session([alert('a')])]));
    notifier.onSnapshot(snapshot());
    notifier.onSnapshot(snapshot([session([alert('a')])]));
    expect(shown).toEqual([]);
    notifier.onSnapshot(snapshot([session([alert('a'), alert('b')])]));
    notifier.onSnapshot(snapshot([session([alert('a'), alert('b')])]));
    expect(shown.map((notice) => notice.title)).toEqual(['Treewarden: stale subagents in a live claude-code session']);
    expect(shown[0]?.body).toBe(
      'stale subagents (2 processes) in claude-code session claude-code-600-1: 2 subagents idle for 30m under a parent that no longer reads them',
    );
    expect(shown[0]?.sessionIds).toEqual(['claude-code-600-1']);
  });
});
