/**
 * Which rows draw a CPU curve: in All processes only a process that used CPU at one of its
 * samples (a flat line on every sleeping row told nothing and cost the idle page most of its
 * curves' work); in a run's tree every member with two samples.
 */
import { act, render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ProcessRow } from '../src/components/process-row';
import type { HistorySource } from '../src/hooks/use-samples';
import { useAppStore } from '../src/store/store';
import { makeProcess, NOW, resetStoreEachTest, rowOf, rowProps } from './fixtures';

resetStoreEachTest();

const MIB = 1024 * 1024;

/** A row of `source` for a process whose ring holds `cpu` (one sample a second). */
function rowWithSamples(source: HistorySource, pid: number, cpu: readonly (number | null)[]) {
  const node = makeProcess({ pid, ppid: 1 });
  const key = `${pid}:${node.startTime}`;
  act(() => {
    const state = useAppStore.getState();
    const book = source === 'system' ? state.systemHistory : state.runHistory;
    const ring = book.ringFor(key);
    cpu.forEach((percent, index) => {
      ring.pushValues(NOW + index * 1000, percent, 10 * MIB);
    });
    // The counters the rows' curves re-read their rings by.
    useAppStore.setState(
      source === 'system'
        ? { systemGroupTicks: state.systemGroupTicks.map((tick) => tick + 1) }
        : { historyTick: state.historyTick + 1 },
    );
  });
  const { container } = render(
    <ProcessRow {...rowProps(rowOf(key, node), { historySource: source, showPorts: source === 'system' })} />,
  );
  return container.querySelector('svg.row-spark');
}

describe('row curves', () => {
  it('draws no curve in All processes for a process that used no CPU at any sample', () => {
    expect(rowWithSamples('system', 300, [0, 0, 0, 0, 0])).toBeNull();
    // Unknown values are not use either.
    expect(rowWithSamples('system', 301, [null, 0, null, 0])).toBeNull();
  });

  it('draws the curve in All processes once any sample shows CPU, however long ago', () => {
    const curve = rowWithSamples('system', 302, [0, 0.4, 0, 0, 0]);
    expect(curve?.querySelector('path')?.getAttribute('d')).toMatch(/^M0\.00,[\d.]+ L/);
    expect(curve?.getAttribute('aria-label')).toMatch(/^CPU 0\.0 %/);
  });

  it("draws every run member's curve, idle or not", () => {
    expect(rowWithSamples('run', 400, [0, 0, 0])?.querySelector('path')?.getAttribute('d')).toBe(
      'M0.00,23.00 L100.00,23.00',
    );
  });

  it('draws nothing from fewer than two samples', () => {
    expect(rowWithSamples('system', 303, [5])).toBeNull();
    expect(rowWithSamples('run', 401, [5])).toBeNull();
  });
});
