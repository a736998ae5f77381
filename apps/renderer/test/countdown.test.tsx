import { act, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Countdown } from '../src/components/countdown';
import { NOW, resetStoreEachTest } from './fixtures';

resetStoreEachTest();

describe('Countdown', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(NOW);
  });
  afterEach(() => vi.useRealTimers());

  it('counts down to the run timeout, live, then says it is timing out', () => {
    const run = { startedAtMs: NOW - 5_000, deadlineAtMs: NOW + 65_000, phase: 'running' as const, timeoutSeconds: 70 };
    render(<Countdown run={run} />);
    expect(screen.getByTestId('countdown').textContent).toContain('times out in 1 min 05 s');
    act(() => vi.advanceTimersByTime(3_000));
    expect(screen.getByTestId('countdown').textContent).toContain('times out in 1 min 02 s');
    act(() => vi.advanceTimersByTime(62_000));
    expect(screen.getByTestId('countdown').textContent).toContain('timing out');
  });

  it('speaks the one duration format, in whole seconds as it ticks', () => {
    const run = { startedAtMs: NOW - 5_000, deadlineAtMs: NOW + 9_400, phase: 'running' as const, timeoutSeconds: 15 };
    render(<Countdown run={run} />);
    // 9.4 s left reads "10 s" (rounded up, never a tenth that flickers between ticks).
    expect(screen.getByTestId('countdown').textContent).toBe('times out in 10 s');
    act(() => vi.advanceTimersByTime(1_000));
    expect(screen.getByTestId('countdown').textContent).toBe('times out in 9 s');
  });

  it('turns to a warning near the deadline', () => {
    const run = { startedAtMs: NOW - 55_000, deadlineAtMs: NOW + 5_000, phase: 'running' as const, timeoutSeconds: 60 };
    render(<Countdown run={run} />);
    expect(screen.getByTestId('countdown').className).toContain('countdown-warn');
  });

  it('shows nothing once the run ended', () => {
    const run = { startedAtMs: NOW - 5_000, deadlineAtMs: NOW + 5_000, phase: 'ended' as const, timeoutSeconds: 10 };
    render(<Countdown run={run} />);
    expect(screen.queryByTestId('countdown')).toBeNull();
  });
});
