/**
 * An idle second re-renders only what changed on screen. A clock tick changes a System view row's
 * Age text (when it changed: an hours-old process's age moves once a minute), not the row; a poll
 * re-renders the row whose process changed, not its neighbours; a sample pass redraws the curves
 * it moved, not their rows; a snapshot that reads as before leaves the marked rows, the toolbar and
 * the app bar alone.
 */
import { act, render } from '@testing-library/react';
import type { ProcessNode } from '@treewarden/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SystemView } from '../src/components/system-view';
import { TopBar } from '../src/components/top-bar';
import { tickWithData } from '../src/store/clock';
import { useAppStore } from '../src/store/store';
import {
  installFakeBridge,
  makeProcess,
  makeSession,
  makeSnapshot,
  okReply,
  resetStoreEachTest,
  withViewportHeight,
} from './fixtures';

/** Renders of each row, counted where every row render passes (its arguments), by command line. */
const rowRenders = new Map<string, number>();
vi.mock('../src/model/format', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/model/format')>();
  return {
    ...real,
    displayArgs: (commandLine: string) => {
      rowRenders.set(commandLine, (rowRenders.get(commandLine) ?? 0) + 1);
      return real.displayArgs(commandLine);
    },
  };
});

/** Renders of the app bar, counted by a child it renders each time. */
let topBarRenders = 0;
vi.mock('../src/components/export-settings', () => ({
  ExportSettingsButton: () => {
    topBarRenders += 1;
    return null;
  },
}));

resetStoreEachTest();

withViewportHeight(600);
afterEach(() => {
  vi.useRealTimers();
});

/** Row renders since `before` (a copy of rowRenders), per process. */
function rendersSince(before: ReadonlyMap<string, number>) {
  return (node: ProcessNode) => (rowRenders.get(node.commandLine) ?? 0) - (before.get(node.commandLine) ?? 0);
}

const start = Date.parse('2026-12-06T12:00:10Z');
/** Hours old: its Age reads "2 h 00 min" for the whole test. */
const OLD = start - 2 * 3_600_000;

function showSystem(processes: ProcessNode[]) {
  installFakeBridge(() => okReply({ enabled: true, processes: [] }));
  render(<SystemView />);
  act(() => {
    useAppStore.getState().setSystemWatched(true);
    useAppStore.getState().replaceSystem(processes);
  });
}

describe('System view rows on a clock tick', () => {
  it('updates the Age text that changed without re-rendering any row', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(start);
    const old = makeProcess({ pid: 1, ppid: 0, command: 'init', startedAtMs: OLD });
    const young = makeProcess({ pid: 50, ppid: 1, command: 'sleep', startedAtMs: start - 5000 });
    showSystem([old, young]);
    const ageOf = (pid: number) => document.querySelector(`[data-pid="${pid}"] .col-age`)?.textContent;
    expect([ageOf(1), ageOf(50)]).toEqual(['2 h 00 min', '5 s']);

    const renders = rendersSince(new Map(rowRenders));
    vi.setSystemTime(start + 1000);
    act(() => tickWithData());
    expect([ageOf(1), ageOf(50)]).toEqual(['2 h 00 min', '6 s']);
    // The Age cell follows the clock by itself: a young process's row is not re-rendered for it.
    expect(renders(young)).toBe(0);
    expect(renders(old)).toBe(0);
  });
});

describe('System view rows on a poll', () => {
  it('re-renders the changed row; a sample pass redraws curves without re-rendering rows', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(start);
    // Sample groups go by pid % 5: the table's first pass samples group 0, the poll 1 s later group 1.
    const init = makeProcess({ pid: 1, ppid: 0, command: 'init', startedAtMs: OLD });
    const sampled = makeProcess({ pid: 11, ppid: 1, command: 'idle', startedAtMs: OLD, cpuPercent: 0 });
    const busy = makeProcess({ pid: 12, ppid: 1, command: 'busy', startedAtMs: OLD, cpuPercent: 5 });
    showSystem([init, sampled, busy]);

    const renders = rendersSince(new Map(rowRenders));
    const groupTicks = [...useAppStore.getState().systemGroupTicks];
    vi.setSystemTime(start + 1000);
    act(() => {
      tickWithData();
      useAppStore
        .getState()
        .applySystemDiff({ type: 'systemDiff', full: false, upserts: [{ ...busy, cpuPercent: 50 }], removed: [] });
    });
    expect(useAppStore.getState().systemGroupTicks[1]).toBe((groupTicks[1] ?? 0) + 1); // group 1 was sampled
    expect(document.querySelector('[data-pid="12"] .col-cpu')?.textContent).toBe('50.0');
    expect(renders(busy)).toBe(1);
    expect(renders(sampled)).toBe(0);
    expect(renders(init)).toBe(0);
  });

  it('leaves the toolbar untouched when its count did not change', () => {
    const a = makeProcess({ pid: 1, ppid: 0, command: 'init', cpuPercent: 1 });
    const b = makeProcess({ pid: 2, ppid: 1, command: 'worker', cpuPercent: 1 });
    showSystem([a, b]);
    const toolbar = document.querySelector('.toolbar');
    if (!toolbar) throw new Error('no toolbar');
    const observer = new MutationObserver(() => {});
    observer.observe(toolbar, { subtree: true, childList: true, attributes: true, characterData: true });
    act(() =>
      useAppStore
        .getState()
        .applySystemDiff({ type: 'systemDiff', full: false, upserts: [{ ...b, cpuPercent: 9 }], removed: [] }),
    );
    expect(observer.takeRecords()).toEqual([]);
    // A process that comes changes the count, and the count shows it.
    const c = makeProcess({ pid: 3, ppid: 1, command: 'new' });
    act(() => useAppStore.getState().applySystemDiff({ type: 'systemDiff', full: false, upserts: [c], removed: [] }));
    expect(observer.takeRecords().length).toBeGreaterThan(0);
    expect(document.querySelector('[data-testid="system-count"]')?.textContent).toBe('3 processes');
    observer.disconnect();
  });

  it('does not re-render a marked row for a snapshot whose marks read as before', () => {
    const init = makeProcess({ pid: 1, ppid: 0, command: 'init' });
    const member = makeProcess({ pid: 501, startTime: '78', ppid: 1, command: 'claude', commandLine: 'claude' });
    showSystem([init, member]);
    const session = makeSession(); // 501:78 is its MCP server
    act(() => useAppStore.getState().applySnapshot(makeSnapshot({ sessions: [session], takenAtMs: start })));
    expect(document.querySelector('[data-pid="501"] [data-testid="member-mark"]')?.textContent).toBe(
      'claude-code session',
    );
    const renders = rendersSince(new Map(rowRenders));
    // The next poll's snapshot: new objects, same marks.
    act(() =>
      useAppStore
        .getState()
        .applySnapshot(makeSnapshot({ sessions: [structuredClone(session)], takenAtMs: start + 1000 })),
    );
    expect(renders(member)).toBe(0);
  });
});

describe('the app bar on a poll', () => {
  it('re-renders only when what it shows changed, not for each snapshot', () => {
    act(() => {
      useAppStore.getState().setConnection({ status: 'open', message: null, transport: 'websocket' });
      useAppStore.getState().applySnapshot(makeSnapshot({ takenAtMs: start }));
    });
    render(<TopBar />);
    const before = topBarRenders;
    act(() => useAppStore.getState().applySnapshot(makeSnapshot({ takenAtMs: start + 1000 })));
    expect(topBarRenders).toBe(before);
    act(() =>
      useAppStore.getState().applySnapshot(makeSnapshot({ takenAtMs: start + 2000, counts: { live: 7, leaked: 0 } })),
    );
    expect(topBarRenders).toBe(before + 1);
    expect(document.querySelector('.count-live')?.textContent).toBe('7 live');
  });
});
