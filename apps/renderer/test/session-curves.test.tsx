/**
 * A session's curves on screen: two sparklines under its sidebar row, a chart in the Sessions
 * view and a CPU sparkline per member row, labelled with the current values; once the session
 * ended with nothing alive, the row and the chart say the values are from its end, never "now".
 */
import { act, render, screen } from '@testing-library/react';
import type { SessionProcess, SessionView } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { SessionView as SessionDetail } from '../src/components/session-view';
import { Sidebar } from '../src/components/sidebar';
import { useAppStore } from '../src/store/store';
import { makeProcess, makeSession, makeSnapshot, NOW, resetStoreEachTest } from './fixtures';

resetStoreEachTest();

const MIB = 1024 * 1024;

function busySession(tick: number): SessionView {
  const root: SessionProcess = {
    ...makeProcess({ pid: 500, startTime: '77', cpuPercent: 10 * tick, rssBytes: (40 + tick) * MIB }),
    role: 'root',
  };
  const mcp: SessionProcess = {
    ...makeProcess({ pid: 501, startTime: '78', ppid: 500, cpuPercent: 5, rssBytes: 8 * MIB }),
    role: 'mcp-server',
  };
  // Started just before the first snapshot these tests feed: the chart sees the whole session.
  return makeSession({ processes: [root, mcp], startedAt: new Date(NOW).toISOString() });
}

function feed(sessionsAt: (tick: number) => SessionView[], ticks: number[]): void {
  act(() => {
    for (const tick of ticks)
      useAppStore.getState().applySnapshot(makeSnapshot({ takenAtMs: NOW + tick * 1000, sessions: sessionsAt(tick) }));
  });
}

function pathOf(testId: string): string {
  return screen.getByTestId(testId).querySelector('path')?.getAttribute('d') ?? '';
}

describe('session curves', () => {
  it('draws CPU and memory sparklines under the sidebar row, labelled with the summed values', () => {
    feed((tick) => [busySession(tick)], [1, 2, 3, 4]);
    render(<Sidebar />);
    expect(pathOf('session-spark-cpu')).toMatch(/^M0\.00,[\d.]+( L[\d.]+,[\d.]+){3}$/);
    expect(pathOf('session-spark-memory')).not.toBe('');
    // 40 % root + 5 % MCP server; 44 MiB + 8 MiB.
    expect(screen.getByTestId('session-spark-cpu').getAttribute('aria-label')).toBe(
      'CPU 45.0 %, rising over the last 3 s',
    );
    expect(screen.getByTestId('session-spark-memory').getAttribute('aria-label')).toBe(
      'Memory 52.0 MiB, steady over the last 3 s',
    );
  });

  it('shows no sparkline from a single snapshot rather than a fake line', () => {
    feed((tick) => [busySession(tick)], [1]);
    render(<Sidebar />);
    expect(screen.queryByTestId('session-sparks')).toBeNull();
  });

  it('charts the session in the Sessions view, with the current values and "now"', () => {
    feed((tick) => [busySession(tick)], [1, 2, 3]);
    render(<SessionDetail />);
    const chart = screen.getByTestId('session-chart');
    expect(chart.textContent).toContain('Resources · whole session');
    expect(chart.textContent).toContain('CPU % · 35.0 %');
    expect(chart.textContent).toContain('Memory · 51.0 MiB');
    expect(chart.textContent).toContain('now');
    expect(pathOf('chart-cpu')).not.toBe('');
    expect(pathOf('chart-memory')).not.toBe('');
    expect(screen.getByRole('region', { name: /Resource history of session claude-code-500-77/ })).toBeTruthy();
  });

  it('says from when the curve runs when the page began watching after the session started', () => {
    // The session started 10 minutes before this page's first snapshot.
    const early = (tick: number) => ({ ...busySession(tick), startedAt: new Date(NOW - 600_000).toISOString() });
    feed((tick) => [early(tick)], [1, 2, 3]);
    render(<SessionDetail />);
    const title = screen.getByTestId('session-chart-title');
    expect(title.textContent).not.toContain('whole session');
    expect(title.textContent).toMatch(/^Resources · since \d\d:\d\d:\d\d \(when this page began watching\)$/);
  });

  it('says an ended session curve is from its end, not now', () => {
    const ended = makeSession({ state: 'ended', endedAt: new Date(NOW + 4000).toISOString(), processes: [] });
    feed((tick) => (tick <= 3 ? [busySession(tick)] : [ended]), [1, 2, 3, 4, 5]);
    render(
      <>
        <Sidebar />
        <SessionDetail />
      </>,
    );
    const chart = screen.getByTestId('session-chart');
    expect(chart.textContent).toContain('(until it ended)');
    expect(chart.textContent).toContain('CPU % · 35.0 % at its end');
    expect(chart.textContent).toContain('its end');
    expect(chart.textContent).not.toContain('now');
    expect(screen.getByTestId('chart-cpu').getAttribute('aria-label')).toBe(
      'CPU 35.0 % at its end, rising over its last 2 s',
    );
  });

  it("draws each member's own CPU curve in its row, from its identity's ring", () => {
    feed((tick) => [busySession(tick)], [1, 2, 3]);
    render(<SessionDetail />);
    const rows = screen.getAllByTestId('session-proc');
    const rootSpark = rows.find((row) => row.dataset.role === 'root')?.querySelector('svg.row-spark');
    expect(rootSpark?.getAttribute('aria-label')).toBe('CPU 30.0 %, rising over the last 2 s');
    expect(rootSpark?.querySelector('path')?.getAttribute('d')).not.toBe('');
    const mcpSpark = rows.find((row) => row.dataset.role === 'mcp-server')?.querySelector('svg.row-spark');
    expect(mcpSpark?.getAttribute('aria-label')).toBe('CPU 5.0 %, steady over the last 2 s');
  });

  it('lists the members in a table whose columns say what they hold', () => {
    feed((tick) => [busySession(tick)], [1, 2]);
    render(<SessionDetail />);
    const table = screen.getByRole('table', { name: 'Session processes' });
    expect(screen.getAllByRole('columnheader').map((header) => header.textContent)).toEqual([
      'PID',
      'Role',
      'Command',
      'CPU trend',
      'CPU',
      'Memory',
    ]);
    const cells = screen.getAllByTestId('session-proc').map((row) => row.querySelectorAll('td').length);
    expect(cells).toEqual([6, 6]);
    expect(table.querySelector('tbody')?.children).toHaveLength(2);
  });
});
