/** What the Runs view says must be what the host knows: unknown timeouts, failures, buttons that cannot work. */
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ActivityPanel } from '../src/components/activity';
import { ConfirmAction } from '../src/components/confirm-action';
import { Countdown } from '../src/components/countdown';
import { LeaseView } from '../src/components/lease-view';
import { RunCard } from '../src/components/run-card';
import { StartRunDialog } from '../src/components/start-run';
import { useAppStore } from '../src/store/store';
import {
  installFakeBridge,
  makeKillReport,
  makeLease,
  makeRun,
  makeSnapshot,
  NOW,
  okReply,
  resetStoreEachTest,
} from './fixtures';

resetStoreEachTest();

const MISSING = 'missing binary: sleep 200 was not found (ENOENT); check the path or PATH';

describe('the truth on the Runs view', () => {
  it('says a timeout no record gives is unknown instead of inventing a deadline', () => {
    render(<Countdown run={{ startedAtMs: NOW, deadlineAtMs: null, phase: 'running', timeoutSeconds: null }} />);
    expect(screen.getByTestId('countdown').textContent).toBe('timeout unknown');
  });

  it('shows why a run failed on its card, and why Retry is disabled', () => {
    const run = makeRun({
      phase: 'ended',
      classification: 'missing_binary',
      endReason: MISSING,
      processes: [],
      retry: { available: false, reason: 'the ledger holds no start record with its command line' },
    });
    render(<RunCard run={run} />);
    expect(screen.getByTestId('run-end-reason').textContent).toBe(MISSING);
    const retry = screen.getByRole('button', { name: 'Retry' }) as HTMLButtonElement;
    expect(retry.disabled).toBe(true);
    expect(retry.title).toContain('no start record');
  });

  it("shows a failed run's last stderr line on its card, and none for a run that ended well", () => {
    const failed = makeRun({
      id: 'run-failed',
      phase: 'ended',
      classification: 'error',
      exitCode: 2,
      processes: [],
      stderrTail: 'compiling…\nerror: cannot open config.toml: no such file\n\n',
    });
    const { unmount } = render(<RunCard run={failed} />);
    expect(screen.getByTestId('run-stderr-line').textContent).toBe(
      'stderr: error: cannot open config.toml: no such file',
    );
    unmount();
    render(
      <RunCard run={makeRun({ phase: 'ended', classification: 'ok', processes: [], stderrTail: 'warning: x' })} />,
    );
    expect(screen.queryByTestId('run-stderr-line')).toBeNull();
  });

  it('shows a refused kill on the run card in the host’s words', () => {
    const run = makeRun({
      lastKill: makeKillReport({
        result: 'refused',
        error: 'refused: pid 100 now belongs to a different process; nothing was signalled',
      }),
    });
    render(<RunCard run={run} />);
    expect(screen.getByTestId('run-kill-problem').textContent).toBe(
      'Kill refused: pid 100 now belongs to a different process; nothing was signalled',
    );
  });

  it('marks a run whose supervisors died as unsupervised, without a countdown nobody enforces', () => {
    render(<RunCard run={makeRun({ unsupervised: true, leakedCount: 1 })} />);
    expect(screen.getByText('unsupervised')).toBeTruthy();
    expect(screen.queryByTestId('countdown')).toBeNull();
    expect(screen.getByRole('button', { name: /1 leaked · clean/ })).toBeTruthy();
  });

  it('disables Release on a lease held by someone else, saying why', () => {
    const lease = makeLease({ heldByThisApp: false, holderState: 'alive' });
    act(() => useAppStore.getState().applySnapshot(makeSnapshot({ leases: [lease] })));
    render(<LeaseView />);
    const release = screen.getByRole('button', { name: 'Release lease' }) as HTMLButtonElement;
    expect(release.disabled).toBe(true);
    expect(release.title).toContain('Only its holder can release it');
  });

  it('asks before releasing its own lease with a live run, naming what ends', async () => {
    const { sent } = installFakeBridge(() => okReply({ released: true, kills: [] }));
    act(() => useAppStore.getState().applySnapshot(makeSnapshot()));
    render(
      <>
        <LeaseView />
        <ConfirmAction />
      </>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Release lease' }));
    expect(sent).toEqual([]);
    const dialog = screen.getByRole('dialog');
    expect(dialog.textContent).toContain('end 1 running run (1 process)');
    expect(dialog.textContent).toContain('run-1: node worker.mjs — 1 process');
    fireEvent.click(screen.getByRole('button', { name: 'Release and end 1 run' }));
    await waitFor(() => expect(sent).toEqual([{ type: 'releaseLease', leaseId: 'lease-1' }]));
  });

  it('splits a typed command line, shows the split, and reports a launch failure as a failure', async () => {
    const { sent } = installFakeBridge(() => okReply({ runId: 'run-9', leaseId: 'lease-1', launchError: MISSING }));
    act(() => useAppStore.getState().setStartFormOpen(true));
    render(
      <>
        <StartRunDialog />
        <ActivityPanel />
      </>,
    );
    fireEvent.change(screen.getByRole('textbox', { name: /Command line/ }), { target: { value: "sleep '200'" } });
    expect(screen.getByTestId('argv-preview').textContent).toBe('Runs sleep200');
    fireEvent.click(screen.getByRole('button', { name: 'Start run' }));
    // Activity is folded to its newest line: the failure and the engine's message are on it.
    await waitFor(() =>
      expect(screen.getByTestId('activity-latest').textContent).toContain('Could not start sleep (run-9)'),
    );
    expect(sent[0]).toMatchObject({ type: 'startRun', command: 'sleep', args: ['200'] });
    const latest = screen.getByTestId('activity-latest');
    expect(latest.textContent).toContain(MISSING);
    expect(latest.textContent).toContain('✕');
    expect(screen.queryByText(/Started sleep/)).toBeNull();
  });

  it('refuses shell syntax in the command line before anything is sent', () => {
    const { sent } = installFakeBridge(() => okReply({}));
    act(() => useAppStore.getState().setStartFormOpen(true));
    render(<StartRunDialog />);
    fireEvent.change(screen.getByRole('textbox', { name: /Command line/ }), { target: { value: 'ls | wc' } });
    fireEvent.click(screen.getByRole('button', { name: 'Start run' }));
    expect(screen.getByRole('alert').textContent).toContain('shell syntax');
    expect(sent).toEqual([]);
  });
});
