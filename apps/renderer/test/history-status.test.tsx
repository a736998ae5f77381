import { act, render, screen, waitFor } from '@testing-library/react';
import type { HistoryEntry } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { HistoryView } from '../src/components/history-view';
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

const open = (runId: string): HistoryEntry => ({
  runId,
  leaseId: 'lease-1',
  command: 'node worker.mjs',
  startedAtMs: NOW - 100_000,
  endedAtMs: null,
  classification: null,
  exitCode: null,
  survivors: 0,
  endReason: null,
  timeoutSeconds: 60,
});

describe('History of runs with no recorded end', () => {
  it('calls a leaked, unsupervised run "leaked" and a supervised one "running"', async () => {
    const history = [open('run-healthy'), open('run-leaked')];
    installFakeBridge((command) => okReply(command.type === 'getHistory' ? { entries: history } : {}));
    const leakedRun = makeRun({ id: 'run-leaked', unsupervised: true, leakedCount: 4 });
    const snapshot = makeSnapshot({
      leases: [makeLease({ runs: [makeRun({ id: 'run-healthy' }), leakedRun] })],
      orphans: [
        {
          runId: 'run-leaked',
          leaseId: 'lease-1',
          kind: 'over',
          reasons: ['its holder and guardian are gone'],
          process: makeProcess({ pid: 4242 }),
        },
      ],
    });
    act(() => {
      useAppStore.getState().applySnapshot(snapshot);
      useAppStore.getState().setHistory(history);
    });
    render(<HistoryView />);
    await waitFor(() => expect(screen.getAllByTestId('history-open-status')).toHaveLength(2));
    const status = (runId: string) =>
      document.querySelector(`[data-run-id="${runId}"] [data-testid="history-open-status"]`)?.textContent;
    expect(status('run-healthy')).toBe('running');
    expect(status('run-leaked')).toBe('leaked');
  });
});
