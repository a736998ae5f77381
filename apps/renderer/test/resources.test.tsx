/**
 * Ports and resource history on screen: the run card's port chips and sparklines, the details'
 * Listening line and chart, a sparkline's aria-label, and the system view's flags and filter.
 */
import { act, fireEvent, render, screen } from '@testing-library/react';
import type { RunView } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { ProcessRow } from '../src/components/process-row';
import { RunCard } from '../src/components/run-card';
import { RunDetails } from '../src/components/run-details';
import { Sparkline } from '../src/components/sparkline';
import { SystemView } from '../src/components/system-view';
import { filterSystemRows, sortSystemRows } from '../src/model/tree';
import { runHistoryKey } from '../src/store/history-slice';
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
  rowOf,
  rowProps,
} from './fixtures';

resetStoreEachTest();

const MIB = 1024 * 1024;

function serverRun(tick: number): RunView {
  return makeRun({
    processes: [
      makeProcess({
        pid: 100,
        ppid: 50,
        cpuPercent: 10 * tick,
        rssBytes: (50 + tick) * MIB,
        listening: [
          { proto: 'tcp', address: '127.0.0.1', port: 3000 },
          { proto: 'udp', address: '0.0.0.0', port: 5353 },
        ],
      }),
      makeProcess({ pid: 101, ppid: 100, cpuPercent: 0, listening: [{ proto: 'tcp', address: '::1', port: 9229 }] }),
    ],
  });
}

/** Feeds `count` snapshots a second apart, as the host would. */
function feedSnapshots(count: number): void {
  act(() => {
    for (let tick = 1; tick <= count; tick += 1)
      useAppStore
        .getState()
        .applySnapshot(
          makeSnapshot({ takenAtMs: NOW + tick * 1000, leases: [makeLease({ runs: [serverRun(tick)] })] }),
        );
  });
}

describe('ports and resource history', () => {
  it('labels a sparkline with the latest value and the trend', () => {
    const samples = [0, 1, 2, 3].map((i) => ({ atMs: NOW + i * 1000, cpuPercent: 10 + i * 20, memoryBytes: MIB }));
    render(<Sparkline samples={samples} kind="cpu" testId="spark" />);
    const svg = screen.getByTestId('spark');
    expect(svg.getAttribute('aria-label')).toBe('CPU 70.0 %, rising over the last 3 s');
    expect(svg.querySelector('path')?.getAttribute('d')).toMatch(/^M0\.00,[\d.]+( L[\d.]+,[\d.]+){3}$/);
  });

  it('draws nothing from a single sample rather than a fake line', () => {
    render(<Sparkline samples={[{ atMs: NOW, cpuPercent: 5, memoryBytes: 0 }]} kind="cpu" testId="spark" />);
    expect(screen.getByTestId('spark').querySelector('path')?.getAttribute('d')).toBe('');
  });

  it("shows a run's ports as chips and its totals as sparklines after a few snapshots", () => {
    feedSnapshots(4);
    const run = useAppStore.getState().snapshot?.leases[0]?.runs[0] as RunView;
    render(<RunCard run={run} />);
    const chips = screen.getByTestId('port-chips');
    expect([...chips.querySelectorAll('li')].map((chip) => chip.textContent)).toEqual([':3000', 'udp :5353', ':9229']);
    expect(chips.getAttribute('aria-label')).toBe('Listening: tcp 127.0.0.1:3000, udp 0.0.0.0:5353, tcp [::1]:9229');
    expect(screen.getByTestId('run-spark-cpu').getAttribute('aria-label')).toMatch(
      /^CPU 40\.0 %, rising over the last 3 s$/,
    );
    expect(screen.getByTestId('run-spark-memory').querySelector('path')?.getAttribute('d')).not.toBe('');
    // The totals ring sums the tree: 40 % + the child's 0 %.
    const totals = useAppStore.getState().runHistory.ring(runHistoryKey('run-1'))?.samples();
    expect(totals?.map((sample) => sample.cpuPercent)).toEqual([10, 20, 30, 40]);
  });

  it("lists a selected process's listening sockets and charts its history in the details", () => {
    installFakeBridge(() => okReply({ entries: [] }));
    feedSnapshots(3);
    act(() => {
      useAppStore.getState().setDetailsFolded(false);
      useAppStore.getState().selectRun('run-1');
      useAppStore.getState().selectProcess('100:10000');
    });
    render(<RunDetails />);
    expect(screen.getByTestId('process-listening').textContent).toBe('tcp 127.0.0.1:3000udp 0.0.0.0:5353');
    const charts = screen.getAllByTestId('resource-chart');
    expect(charts).toHaveLength(2); // the process, then the whole tree
    expect(charts[0]?.getAttribute('aria-label')).toBe('Resource history of process 100, the last 2 s');
    expect(charts[0]?.querySelector('[data-testid="chart-cpu"] path')?.getAttribute('d')).not.toBe('');
    expect(charts[0]?.textContent).toContain('2 s ago');
    expect(charts[0]?.textContent).toContain('now');
  });

  it('shows an empty state under the Flagged filter when nothing is flagged', () => {
    installFakeBridge(() => okReply({ enabled: true, processes: [] }));
    render(<SystemView />);
    act(() => {
      useAppStore.getState().replaceSystem([makeProcess({ pid: 1, ppid: 0 }), makeProcess({ pid: 200, ppid: 1 })]);
    });
    expect(screen.getByRole('button', { name: /^Sort by Ports/ })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Flagged' }));
    expect(screen.getByTestId('system-empty').textContent).toContain('Nothing is flagged');
  });

  it("shows a system row's ports and its flag, with the reason in the badge's tooltip", () => {
    const node = makeProcess({ pid: 300, ppid: 1, listening: [{ proto: 'tcp', address: '0.0.0.0', port: 8080 }] });
    const reason = 'CPU at or above 90 % for 3 min (lowest 99.0 %)';
    render(
      <ProcessRow
        {...rowProps(rowOf('300:30000', node), {
          historySource: 'system',
          showPorts: true,
          flags: [{ kind: 'cpu', reason }],
        })}
      />,
    );
    expect(document.querySelector('.col-ports')?.textContent).toBe(':8080');
    expect(document.querySelector('.col-ports')?.getAttribute('title')).toBe('tcp 0.0.0.0:8080');
    expect(document.querySelector('.marker-flag')?.getAttribute('title')).toBe(`Flagged: ${reason}`);
  });

  it('keeps only flagged processes (and their ancestors for context) under the filter', () => {
    const table = new Map(
      [makeProcess({ pid: 1, ppid: 0 }), makeProcess({ pid: 300, ppid: 1 }), makeProcess({ pid: 301, ppid: 1 })].map(
        (node) => [`${node.pid}:${node.startTime}`, node] as const,
      ),
    );
    const rows = filterSystemRows(
      table,
      { text: '', filter: 'flagged', uid: null, flagged: new Set(['300:30000']) },
      new Set(),
    );
    expect(rows.map((row) => [row.node.pid, row.context === true])).toEqual([
      [1, true],
      [300, false],
    ]);
  });

  it('sorts by port with listeners first in either direction', () => {
    const nodes = [
      makeProcess({ pid: 5 }),
      makeProcess({ pid: 6, listening: [{ proto: 'tcp', address: '::', port: 8080 }] }),
      makeProcess({ pid: 7, listening: [{ proto: 'udp', address: '0.0.0.0', port: 53 }] }),
    ];
    const table = new Map(nodes.map((node) => [`${node.pid}:${node.startTime}`, node] as const));
    const query = { text: '', filter: 'all' as const, uid: null };
    expect(sortSystemRows(table, query, { key: 'ports', direction: 'ascending' }).map((row) => row.node.pid)).toEqual([
      7, 6, 5,
    ]);
    expect(sortSystemRows(table, query, { key: 'ports', direction: 'descending' }).map((row) => row.node.pid)).toEqual([
      6, 7, 5,
    ]);
  });
});
