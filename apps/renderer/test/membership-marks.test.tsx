/**
 * All processes marks what each process belongs to, in text: a leaked process says it leaked and
 * whose it was; run members name their run and lease; session members their agent session. A
 * recycled pid (same pid, another start time) carries no mark. Searched rows keep their marks.
 */
import { act, fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { SystemView } from '../src/components/system-view';
import { membershipMarks } from '../src/model/membership-marks';
import { useAppStore } from '../src/store/store';
import {
  installFakeBridge,
  makeLease,
  makeProcess,
  makeRun,
  makeSession,
  makeSnapshot,
  okReply,
  resetStoreEachTest,
  withViewportHeight,
} from './fixtures';

resetStoreEachTest();

withViewportHeight(600);

const runMember = makeProcess({ pid: 100, ppid: 50, command: 'node', commandLine: 'node worker.mjs' });
const leaked = makeProcess({ pid: 300, ppid: 1, command: 'sleep', commandLine: 'sleep 1000' });
const snapshot = makeSnapshot({
  leases: [makeLease({ name: 'nightly', runs: [makeRun({ id: 'run-abcdef123456', processes: [runMember] })] })],
  orphans: [
    {
      runId: 'run-old-9876543210',
      leaseId: 'lease-1',
      kind: 'over',
      reasons: ['carries the cookie of an ended run'],
      process: leaked,
    },
  ],
  counts: { live: 1, leaked: 1 },
  sessions: [makeSession()],
});

describe('membership marks', () => {
  it('names leaks, run members with their lease and session members, by identity', () => {
    const marks = membershipMarks(snapshot);
    expect(marks.get('300:30000')).toMatchObject({ leaked: true, label: 'leaked · run-old-…' });
    expect(marks.get('300:30000')?.title).toContain('lease nightly');
    expect(marks.get('100:10000')).toMatchObject({ leaked: false, label: 'run-abcd… · lease nightly' });
    expect(marks.get('501:78')).toMatchObject({ leaked: false, label: 'claude-code session' });
    expect(marks.get('300:99')).toBeUndefined();
    expect(membershipMarks(null).size).toBe(0);
  });

  it('shows the marks on All processes rows, also when searched', () => {
    installFakeBridge(() => okReply({ enabled: true, processes: [] }));
    render(<SystemView />);
    const recycled = makeProcess({ pid: 501, startTime: '999', ppid: 1, command: 'vim', commandLine: 'vim' });
    const init = makeProcess({ pid: 1, ppid: 0, command: 'init', commandLine: 'init' });
    act(() => {
      useAppStore.getState().applySnapshot(snapshot);
      useAppStore.getState().replaceSystem([init, runMember, leaked, recycled]);
    });
    const row = (pid: number) => document.querySelector(`[data-pid="${pid}"]`) as HTMLElement;
    expect(row(300).textContent).toContain('leaked · run-old-…');
    expect(row(300).className).toContain('leaked');
    expect(row(100).textContent).toContain('run-abcd… · lease nightly');
    expect(row(501).querySelector('[data-testid="member-mark"]')).toBeNull();
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search processes' }), { target: { value: 'sleep' } });
    expect(row(300).textContent).toContain('leaked · run-old-…');
  });
});
