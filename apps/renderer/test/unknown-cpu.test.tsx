/**
 * The host sends no CPU for a process it sees for the first time (nothing to diff yet). The
 * renderer keeps that unknown as unknown: no 0 point in the history, no line drawn to it, "—"
 * in the labels until a value is known.
 */
import { act, render, screen } from '@testing-library/react';
import type { ProcessNode } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { ResourceChart } from '../src/components/resource-chart';
import { Sparkline, sparkPath, valuesOf } from '../src/components/sparkline';
import { SampleRing } from '../src/model/history';
import { runHistoryKey } from '../src/store/history-slice';
import { useAppStore } from '../src/store/store';
import { makeLease, makeProcess, makeRun, makeSnapshot, NOW, resetStoreEachTest } from './fixtures';

resetStoreEachTest();

const MIB = 1024 * 1024;

/** A node as the host sends it on first sight: every field but cpuPercent. */
function firstSight(pid: number): ProcessNode {
  const { cpuPercent: _unknown, ...node } = makeProcess({ pid, rssBytes: 40 * MIB });
  return node;
}

function feed(tick: number, processes: ProcessNode[]): void {
  useAppStore
    .getState()
    .applySnapshot(
      makeSnapshot({ takenAtMs: NOW + tick * 1000, leases: [makeLease({ runs: [makeRun({ processes })] })] }),
    );
}

describe('unknown CPU in the history', () => {
  it('the ring keeps an unknown sample as null, never as 0', () => {
    const ring = new SampleRing(4);
    ring.push({ atMs: NOW, cpuPercent: null, memoryBytes: MIB });
    ring.push({ atMs: NOW + 1000, cpuPercent: 0, memoryBytes: MIB });
    expect(ring.samples().map((sample) => sample.cpuPercent)).toEqual([null, 0]);
    expect(ring.at(0)?.cpuPercent).toBeNull();
  });

  it('a first snapshot without CPU gives the process and its run no 0 point', () => {
    act(() => feed(1, [firstSight(100)]));
    act(() => feed(2, [makeProcess({ pid: 100, cpuPercent: 25, rssBytes: 40 * MIB })]));
    const { runHistory } = useAppStore.getState();
    const processCurve = runHistory.ring(`100:${makeProcess({ pid: 100 }).startTime}`)?.samples();
    expect(processCurve?.map((sample) => sample.cpuPercent)).toEqual([null, 25]);
    const runCurve = runHistory.ring(runHistoryKey('run-1'))?.samples() ?? [];
    expect(runCurve.map((sample) => sample.cpuPercent)).toEqual([null, 25]);
    // Memory was measured both times: that curve has both points.
    expect(runCurve.map((sample) => sample.memoryBytes)).toEqual([40 * MIB, 40 * MIB]);
  });
});

describe('unknown CPU on screen', () => {
  const at = (i: number, cpuPercent: number | null) => ({ atMs: NOW + i * 1000, cpuPercent, memoryBytes: MIB });

  it('draws no point and no line to an unknown value', () => {
    // Leading unknown: the stroke starts at the first known point (x = 50 of 100), not at a 0.
    expect(sparkPath([null, 5, 5], 'cpu')).toMatch(/^M50\.00,/);
    expect(sparkPath([null, 5, 5], 'cpu').match(/[ML]/g)).toEqual(['M', 'L']);
    // A gap in the middle: two strokes, no segment through it.
    expect(sparkPath([3, null, 5], 'cpu').match(/[ML]/g)).toEqual(['M', 'M']);
    expect(valuesOf([at(0, null), at(1, 12)], 'cpu')).toEqual([null, 12]);
  });

  it('labels say "—" while the newest value is unknown', () => {
    render(
      <>
        <Sparkline samples={[at(0, 4), at(1, null)]} kind="cpu" testId="spark" />
        <ResourceChart samples={[at(0, 4), at(1, null)]} what="run-1" />
      </>,
    );
    expect(screen.getByTestId('spark').getAttribute('aria-label')).toContain('CPU —');
    expect(screen.getByText(/CPU %/).textContent).toContain('· —');
    expect(screen.getByText(/CPU %/).textContent).not.toContain('0.0 %');
  });
});
