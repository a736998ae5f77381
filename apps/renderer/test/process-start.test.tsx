/**
 * Start times a person can read: the run's root and a kill's survivors show their wall-clock
 * start where the renderer holds that exact process (same pid and start time), and otherwise
 * name the kernel's start time as an identity — never a reused pid's start as if it were theirs.
 */
import { act, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { KillTimeline } from '../src/components/kill-timeline';
import { RunDetails } from '../src/components/run-details';
import { formatWallClock } from '../src/model/format';
import { describeStart, findStartedAtMs } from '../src/model/process-start';
import { useAppStore } from '../src/store/store';
import {
  installFakeBridge,
  makeKillReport,
  makeLease,
  makeProcess,
  makeRun,
  makeSession,
  makeSnapshot,
  NOW,
  okReply,
  resetStoreEachTest,
} from './fixtures';

resetStoreEachTest();

const ROOT_STARTED = NOW - 65_000;

describe('process start times', () => {
  it('finds the wall-clock start by exact identity in runs, sessions and the system table', () => {
    const snapshot = makeSnapshot({ sessions: [makeSession()] });
    expect(findStartedAtMs({ pid: 100, startTime: '10000' }, snapshot, new Map())).toBe(ROOT_STARTED);
    expect(findStartedAtMs({ pid: 501, startTime: '78' }, snapshot, new Map())).toBe(ROOT_STARTED);
    // Same pid, another start: a different process, whose start is not known here.
    expect(findStartedAtMs({ pid: 100, startTime: '99999' }, snapshot, new Map())).toBeNull();
    const stray = makeProcess({ pid: 900, startTime: '12', startedAtMs: NOW - 5_000 });
    expect(findStartedAtMs({ pid: 900, startTime: '12' }, null, new Map([['900:12', stray]]))).toBe(NOW - 5_000);
    expect(describeStart({ pid: 1, startTime: '42' }, null)).toBe('identity 42');
    expect(describeStart({ pid: 1, startTime: '42' }, NOW, NOW)).toBe(`started ${formatWallClock(NOW, NOW)}`);
  });

  it("shows the run root's wall-clock start while it lives, and its identity once it is gone", () => {
    installFakeBridge((command) => okReply(command.type === 'getHistory' ? { entries: [] } : {}));
    act(() => {
      useAppStore.getState().applySnapshot(makeSnapshot());
      useAppStore.getState().setDetailsFolded(false);
      useAppStore.getState().selectRun('run-1');
    });
    render(<RunDetails />);
    expect(screen.getByTestId('run-root-start').textContent).toBe(`started ${formatWallClock(ROOT_STARTED)}`);
    const ended = makeRun({ phase: 'ended', endedAtMs: NOW, processes: [] });
    act(() => useAppStore.getState().applySnapshot(makeSnapshot({ leases: [makeLease({ runs: [ended] })] })));
    expect(screen.getByTestId('run-root-start').textContent).toBe('identity 10000');
  });

  it("names a kill's survivors by wall-clock start, and a survivor the renderer does not hold by identity", () => {
    act(() => useAppStore.getState().applySnapshot(makeSnapshot()));
    const report = makeKillReport({
      result: 'kill_failed',
      survivors: [
        { pid: 100, startTime: '10000' },
        { pid: 100, startTime: '77777' },
      ],
    });
    const { container } = render(<KillTimeline report={report} />);
    expect(container.querySelector('.kill-survivors')?.textContent).toBe(
      `Survivors: 100 (started ${formatWallClock(ROOT_STARTED)}), 100 (identity 77777)`,
    );
  });
});
