import { act, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { WarningBanner } from '../src/components/warning-banner';
import { useAppStore } from '../src/store/store';
import { makeSnapshot, resetStoreEachTest } from './fixtures';

resetStoreEachTest();

describe('WarningBanner', () => {
  it('is absent while the host reports nothing missing', () => {
    act(() => useAppStore.getState().applySnapshot(makeSnapshot()));
    render(<WarningBanner />);
    expect(screen.queryByTestId('warning-banner')).toBeNull();
  });

  it('shows every warning the host sends (a missing native capability is never silent)', () => {
    const warnings = [
      'Native calls are unavailable (koffi did not load: Cannot find module): no pidfd signalling and no subreaper.',
      'The child subreaper is unavailable: guardians cannot adopt descendants that escape their runs.',
    ];
    act(() => useAppStore.getState().applySnapshot(makeSnapshot({ warnings })));
    render(<WarningBanner />);
    const banner = screen.getByTestId('warning-banner');
    expect(banner.getAttribute('role')).toBe('status');
    for (const warning of warnings) expect(banner.textContent).toContain(warning);
  });
});
