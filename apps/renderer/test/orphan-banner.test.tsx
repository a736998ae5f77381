import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ActivityPanel } from '../src/components/activity';
import { CleanConfirm } from '../src/components/clean-confirm';
import { OrphanBanner } from '../src/components/orphan-banner';
import { useAppStore } from '../src/store/store';
import { installFakeBridge, makeKillReport, makeProcess, makeSnapshot, okReply, resetStoreEachTest } from './fixtures';

resetStoreEachTest();

const leaked = {
  runId: 'run-7',
  leaseId: 'lease-1',
  reasons: ['carries the cookie of ended run run-7'],
  process: makeProcess({ pid: 4242, command: 'run-forever', escaped: true }),
};

describe('OrphanBanner', () => {
  it('is absent while nothing leaked', () => {
    act(() => useAppStore.getState().applySnapshot(makeSnapshot()));
    render(<OrphanBanner />);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('cannot be missed when a tree leaked, and cleans up after one confirmation', async () => {
    const { sent } = installFakeBridge(() =>
      okReply({ kills: [makeKillReport({ target: { pid: 4242, startTime: '424200' } })] }),
    );
    act(() =>
      useAppStore.getState().applySnapshot(makeSnapshot({ orphans: [leaked], counts: { live: 1, leaked: 1 } })),
    );
    render(
      <>
        <OrphanBanner />
        <CleanConfirm />
        <ActivityPanel />
      </>,
    );
    const banner = screen.getByRole('alert');
    expect(banner.textContent).toContain('1 leaked process from 1 ended run still alive');
    expect(banner.textContent).toContain('pid 4242');
    expect(banner.textContent).toContain('carries the cookie of ended run run-7');
    fireEvent.click(screen.getByRole('button', { name: 'Clean up all' }));
    // Like a single kill, the clean-up asks first and names what it ends; nothing is sent yet.
    const dialog = screen.getByRole('dialog', { name: 'Confirm clean-up' });
    expect(dialog.textContent).toContain('pid 4242');
    expect(dialog.textContent).toContain('carries the cookie of ended run run-7');
    expect(sent).toEqual([]);
    expect(document.activeElement?.textContent).toBe('Cancel');
    fireEvent.click(screen.getByRole('button', { name: 'Clean up' }));
    await waitFor(() =>
      expect(screen.getByTestId('activity-latest').textContent).toContain('Cleaned 1 of 1 leaked tree'),
    );
    expect(sent).toEqual([{ type: 'cleanOrphans' }]);
    // The next snapshot no longer lists the orphan: the banner goes away.
    act(() => useAppStore.getState().applySnapshot(makeSnapshot()));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('sends nothing when the clean-up is cancelled', () => {
    const { sent } = installFakeBridge(() => okReply({ kills: [] }));
    act(() =>
      useAppStore.getState().applySnapshot(makeSnapshot({ orphans: [leaked], counts: { live: 1, leaked: 1 } })),
    );
    render(
      <>
        <OrphanBanner />
        <CleanConfirm />
      </>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Clean up all' }));
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(useAppStore.getState().confirmClean).toBeNull();
    expect(sent).toEqual([]);
  });
});
