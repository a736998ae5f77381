/** Run details: a selected process's own facts and membership evidence, the real cwd, earlier runs. */
import { act, render, screen, waitFor } from '@testing-library/react';
import type { HistoryEntry, RunView } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { RunDetails } from '../src/components/run-details';
import { formatWallClock } from '../src/model/format';
import { useAppStore } from '../src/store/store';
import {
  installFakeBridge,
  makeLease,
  makeProcess,
  makeRun,
  makeSnapshot,
  NOW,
  okReply,
  resetStoreEachTest,
} from './fixtures';

resetStoreEachTest();

function entry(overrides: Partial<HistoryEntry> & { runId: string }): HistoryEntry {
  return {
    leaseId: 'lease-1',
    command: 'node worker.mjs',
    startedAtMs: NOW - 100_000,
    endedAtMs: NOW - 90_000,
    classification: 'ok',
    exitCode: 0,
    survivors: 0,
    endReason: null,
    timeoutSeconds: 60,
    ...overrides,
  };
}

const child = makeProcess({
  pid: 101,
  ppid: 100,
  pgid: 101,
  sid: 101,
  escaped: true,
  escapedInto: 'session',
  cwd: '/home/me/project',
  commandLine: 'node child.mjs --flag',
  evidence: ['child of pid 100 (node), a member with the same identity when first seen'],
});

function showRun(history: HistoryEntry[], overrides: Partial<RunView> = {}) {
  installFakeBridge((command) => okReply(command.type === 'getHistory' ? { entries: history } : {}));
  const run = makeRun({
    processes: [makeProcess({ pid: 100, ppid: 50 }), child],
    cwd: '/state/runs/run-1',
    ...overrides,
  });
  act(() => {
    useAppStore.getState().applySnapshot(makeSnapshot({ leases: [makeLease({ runs: [run] })] }));
    useAppStore.getState().setDetailsFolded(false);
    useAppStore.getState().selectRun('run-1');
  });
  return render(<RunDetails />);
}

describe('run details', () => {
  it('says where the output of a run it did not start went, instead of calling it empty', () => {
    showRun([], { outputCaptured: false, stdoutTail: '' });
    expect(screen.getByTestId('details-output-elsewhere').textContent).toContain('Not captured here');
    expect(screen.queryByText('(empty)')).toBeNull();
  });

  it('calls a run whose supervisors died unsupervised in its header, as its card does, never running', () => {
    showRun([], { unsupervised: true, leakedCount: 2 });
    expect(screen.getByTestId('run-unsupervised').textContent).toBe('unsupervised');
    expect(document.querySelector('.badge-phase-running')).toBeNull();
  });

  it('shows the captured tails of its own runs, (empty) meaning empty', () => {
    showRun([], { stdoutTail: 'built 3 files\n', stderrTail: '' });
    expect(screen.queryByTestId('details-output-elsewhere')).toBeNull();
    expect(screen.getByText('built 3 files')).toBeTruthy();
    expect(screen.getByText('(empty)')).toBeTruthy();
  });

  it("shows a selected process's own identity, place, argv, cwd and why it is a member", () => {
    showRun([]);
    act(() => useAppStore.getState().selectProcess(`101:${child.startTime}`));
    const section = screen.getByRole('region', { name: 'Process 101' });
    expect(section.textContent).toContain(`started ${formatWallClock(child.startedAtMs)}`);
    expect(section.textContent).toContain(`(${child.startTime})`);
    expect(section.textContent).toContain('pid 100');
    expect(section.textContent).toContain('pgid 101 · sid 101');
    expect(section.textContent).toContain('escaped into its own session');
    expect(section.textContent).toContain('uid 1000');
    expect(section.textContent).toContain('node child.mjs --flag');
    expect(section.textContent).toContain('/home/me/project');
    expect(section.textContent).toContain('child of pid 100 (node)');
  });

  it('shows the cwd the ledger recorded, and finds earlier runs of the same command line', async () => {
    showRun([
      entry({ runId: 'run-1', cwd: '/home/me/project', command: 'node worker.mjs' }),
      entry({ runId: 'run-0', command: 'node worker.mjs' }),
      entry({ runId: 'run-other', command: 'node other.mjs' }),
    ]);
    await waitFor(() => expect(screen.getByTestId('run-cwd').textContent).toBe('/home/me/project'));
    expect(screen.getByText('/state/runs/run-1')).toBeTruthy(); // the private dir, labelled as such
    const earlier = document.querySelector('.mini-history') as HTMLElement;
    expect(earlier.textContent).toContain('run-0');
    expect(earlier.textContent).not.toContain('run-other');
    expect(earlier.textContent).not.toContain('run-1 ');
  });

  it('folds to a rail and opens again', () => {
    showRun([]);
    act(() => useAppStore.getState().setDetailsFolded(true));
    expect(screen.getByRole('button', { name: /Details/ })).toBeTruthy();
    expect(screen.queryByText('Env cookie')).toBeNull();
  });
});

describe('formatWallClock', () => {
  it('says "today" for today and the date otherwise', () => {
    const now = new Date(2026, 10, 30, 15, 0, 0).getTime();
    expect(formatWallClock(new Date(2026, 10, 30, 9, 5, 7).getTime(), now)).toBe('today 09:05:07');
    expect(formatWallClock(new Date(2026, 10, 29, 23, 59, 1).getTime(), now)).toBe('2026-11-29 23:59:01');
  });
});
