/** The lease header says "guardian lost" when the snapshot says so, and only then. */
import { act, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { LeaseView } from '../src/components/lease-view';
import { useAppStore } from '../src/store/store';
import { makeLease, makeSnapshot, resetStoreEachTest } from './fixtures';

resetStoreEachTest();

describe('lease header: guardian lost', () => {
  it('shows the badge for a lease whose guardian died', () => {
    act(() => useAppStore.getState().applySnapshot(makeSnapshot({ leases: [makeLease({ guardianLost: true })] })));
    render(<LeaseView />);
    expect(screen.getByText('guardian lost').getAttribute('title')).toContain('holder supervises the runs itself');
  });

  it('shows no badge while the guardian is there', () => {
    act(() => useAppStore.getState().applySnapshot(makeSnapshot({ leases: [makeLease()] })));
    render(<LeaseView />);
    expect(screen.getByRole('heading', { name: 'ui' })).toBeTruthy();
    expect(screen.queryByText('guardian lost')).toBeNull();
  });
});
