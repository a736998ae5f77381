/**
 * The System view's spin and growth rules, per member: a window must be measured throughout (an
 * unknown first sample never counts), a plateau after one jump is not growth, and idleness is only
 * said of a history that reaches back far enough.
 */
import { describe, expect, it } from 'vitest';
import { cpuSpin, createSampleHistory, idleFor, lifetimeSpin, memoryGrowth } from '../../../src/agents/alerts/index.js';
import type { UsageSample } from '../../../src/agents/alerts/samples.js';
import type { ProcessEntry } from '../../../src/table/types.js';
import { fakeEntry } from '../../helpers/index.js';

const MIB = 1024 * 1024;

function series(points: readonly [number, number | null, number, number?][]): UsageSample[] {
  return points.map(([atMs, cpuPercent, memoryMib, cpuTimeMs]) => ({
    atMs,
    cpuPercent,
    memoryBytes: memoryMib * MIB,
    cpuTimeMs: cpuTimeMs ?? 0,
  }));
}

describe('usage rules', () => {
  it('a spin needs the whole window measured at or above the bar; the first sample measures nothing', () => {
    const spinning = series([
      [0, null, 10],
      [5000, 99, 10],
      [10_000, 97, 10],
    ]);
    // Each sample measures the time since the one before: 10 s are covered from the first on.
    expect(cpuSpin(spinning, 90, 10_000)).toMatch(/at or above 90 % for 10 s \(lowest 97 %\)/);
    expect(cpuSpin(spinning, 90, 10_001)).toBeNull(); // reaching before the first sample: unknown
    expect(
      cpuSpin(
        series([
          [0, null, 10],
          [5000, 99, 10],
          [10_000, 40, 10],
        ]),
        90,
        5000,
      ),
    ).toBeNull();
    expect(cpuSpin(spinning, 90, 60_000)).toBeNull(); // history too short
  });

  it("the kernel's lifetime count: only a life at least as long as the window", () => {
    const entry: ProcessEntry = fakeEntry({ pid: 5, ppid: 1, pgid: 5, startedAtMs: 1000, cpuTimeMs: 9000 });
    expect(lifetimeSpin(entry, 11_000, 80, 5000)).toMatch(/averaged 90 %/);
    expect(lifetimeSpin(entry, 11_000, 95, 5000)).toBeNull();
    expect(lifetimeSpin(entry, 5000, 80, 5000)).toBeNull();
  });

  it('growth: steady over the window and still rising at its end', () => {
    const growing = series([0, 1, 2, 3, 4, 5, 6].map((minute) => [minute * 60_000, 1, 100 + minute * 30]));
    expect(memoryGrowth(growing, 20, 6 * 60_000)).toMatch(/100 MiB → 280 MiB .*30 MiB\/min/);
    const plateau = series([0, 1, 2, 3, 4, 5, 6].map((minute) => [minute * 60_000, 1, minute === 0 ? 100 : 400]));
    expect(memoryGrowth(plateau, 20, 6 * 60_000)).toBeNull();
  });

  it('idle: no CPU time over a window the history spans', () => {
    const idle = series([
      [0, null, 1, 500],
      [3000, 0, 1, 500],
      [6000, 0, 1, 500],
    ]);
    expect(idleFor(idle, 5000)).toMatch(/no CPU used for 5 s/);
    expect(idleFor(idle, 10_000)).toBeNull();
    expect(
      idleFor(
        series([
          [0, null, 1, 500],
          [3000, 0, 1, 500],
          [6000, 1, 1, 560],
        ]),
        5000,
      ),
    ).toBeNull();
  });

  it('the history keeps a sample per spacing, computes CPU between kept ones, and forgets the gone', () => {
    const history = createSampleHistory(1000, 3);
    const entry = (cpuTimeMs: number) => fakeEntry({ pid: 7, ppid: 1, pgid: 7, cpuTimeMs });
    history.record([entry(0)], 0);
    history.record([entry(100)], 500); // too close: not kept
    history.record([entry(500)], 1000);
    expect(history.samplesOf(entry(0)).map((sample) => sample.cpuPercent)).toEqual([null, 50]);
    for (const at of [2000, 3000, 4000]) history.record([entry(at)], at);
    expect(history.samplesOf(entry(0))).toHaveLength(3);
    history.record([], 5000);
    expect(history.size).toBe(0);
  });
});
