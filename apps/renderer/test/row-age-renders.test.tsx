/**
 * A clock tick re-renders a System view row only when its shown text changes: an hours-old
 * process's age moves once a minute, so its row is left alone on the other 59 ticks (every
 * visible row used to re-render, and Chromium re-laid it out, every second of an idle window).
 */
import { act, render } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SystemView } from '../src/components/system-view';
import type { Sample } from '../src/model/history';
import { identityKey } from '../src/model/identity';
import { tickWithData } from '../src/store/clock';
import { useAppStore } from '../src/store/store';
import { installFakeBridge, makeProcess, okReply, resetStoreEachTest, withViewportHeight } from './fixtures';

/** Renders of each row, counted where every row render passes: its samples hook. */
const rowRenders = new Map<string, number>();
vi.mock('../src/hooks/use-samples', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/hooks/use-samples')>();
  return {
    useSamples: (source: Parameters<typeof real.useSamples>[0], key: string | null): Sample[] => {
      if (key !== null) rowRenders.set(key, (rowRenders.get(key) ?? 0) + 1);
      return real.useSamples(source, key);
    },
  };
});

resetStoreEachTest();

withViewportHeight(600);
afterEach(() => {
  vi.useRealTimers();
});

describe('System view rows on a clock tick', () => {
  it('re-renders the row whose age text changed, not the hours-old one', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.parse('2026-12-06T12:00:10Z');
    vi.setSystemTime(start);
    installFakeBridge(() => okReply({ enabled: true, processes: [] }));
    render(<SystemView />);
    const old = makeProcess({ pid: 1, ppid: 0, command: 'init', startedAtMs: start - 2 * 3_600_000 });
    const young = makeProcess({ pid: 50, ppid: 1, command: 'sleep', startedAtMs: start - 5000 });
    act(() => useAppStore.getState().replaceSystem([old, young]));
    const ageOf = (pid: number) => document.querySelector(`[data-pid="${pid}"] .col-age`)?.textContent;
    expect([ageOf(1), ageOf(50)]).toEqual(['2 h 00 min', '5 s']);

    const before = new Map(rowRenders);
    vi.setSystemTime(start + 1000);
    act(() => tickWithData());
    expect([ageOf(1), ageOf(50)]).toEqual(['2 h 00 min', '6 s']);
    const renders = (node: typeof old) =>
      (rowRenders.get(identityKey(node)) ?? 0) - (before.get(identityKey(node)) ?? 0);
    expect(renders(young)).toBe(1);
    expect(renders(old)).toBe(0);
  });
});
