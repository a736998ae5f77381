/**
 * The spin and growth rules both sides of the wire use (engine session alerts, renderer System
 * view flags). The engine used to skip the first sample inside the window and the renderer to
 * count it; both claimed a window they had not measured in one case each. The anchor rule measures
 * exactly the window: these tests pin each case.
 */
import { describe, expect, it } from 'vitest';
import { identityKey } from '../src/identity-key.js';
import {
  GROWTH_STEP_SHARE,
  memoryGrowthOver,
  spinLowest,
  type WindowSample,
  windowAnchor,
} from '../src/usage-window.js';

const MIB = 1024 * 1024;

function samples(points: readonly [atMs: number, cpuPercent: number | null, memoryMib?: number][]): WindowSample[] {
  return points.map(([atMs, cpuPercent, memoryMib]) => ({ atMs, cpuPercent, memoryBytes: (memoryMib ?? 1) * MIB }));
}

describe('windowAnchor', () => {
  it('is the newest sample at or before the window start, or -1 when history is too short', () => {
    const five = samples([
      [0, null],
      [5, 1],
      [10, 1],
      [15, 1],
      [22, 1],
    ]);
    expect(windowAnchor(five, 15)).toBe(1); // from 7: the sample at 5
    expect(windowAnchor(five, 12)).toBe(2); // from 10: exactly on a sample
    expect(windowAnchor(five, 22)).toBe(0);
    expect(windowAnchor(five, 23)).toBe(-1); // reaches before the first sample: unknown
    expect(windowAnchor([], 1)).toBe(-1);
  });
});

describe('spinLowest', () => {
  it('counts every interval of the window and nothing before it', () => {
    // Samples fall on the window's edge: the anchor (at 0) measures time before the window.
    const onEdge = samples([
      [0, null],
      [5000, 99],
      [10_000, 97],
    ]);
    expect(spinLowest(onEdge, 90, 10_000)).toBe(97);
  });

  it('never claims a window it has not measured: off the edge, the interval that starts before it counts', () => {
    // A 15 s window ending at 22 starts at 7. The interval (5, 10] overlaps it, so its 20 % breaks
    // the spin. Starting from the first sample inside the window (at 10) would have measured only
    // (10, 22] = 12 s and claimed "at or above 90 % for 15 s".
    const offEdge = samples([
      [0, null],
      [5, 100],
      [10, 20],
      [15, 100],
      [22, 100],
    ]);
    expect(spinLowest(offEdge, 90, 15)).toBeNull();
    // The same history with the low interval wholly before the window (it ends at 5 ≤ 7) spins.
    const earlyDip = samples([
      [0, 20],
      [5, 20],
      [10, 95],
      [15, 100],
      [22, 100],
    ]);
    expect(spinLowest(earlyDip, 90, 15)).toBe(95);
  });

  it('an unknown interval or one below the bar is no spin; a single sample measures nothing', () => {
    expect(
      spinLowest(
        samples([
          [0, 99],
          [5, null],
          [10, 99],
        ]),
        90,
        10,
      ),
    ).toBeNull();
    expect(spinLowest(samples([[0, 99]]), 90, 0)).toBeNull();
  });
});

describe('memoryGrowthOver', () => {
  const minute = 60_000;

  it('measures the rate from the anchor to the newest sample', () => {
    const growing = samples([0, 1, 2, 3, 4, 5, 6].map((m) => [m * minute, 1, 100 + m * 30]));
    const growth = memoryGrowthOver(growing, 20, 6 * minute);
    expect(growth).toEqual({ fromBytes: 100 * MIB, toBytes: 280 * MIB, spanMs: 6 * minute, mibPerMinute: 30 });
  });

  it('a plateau after one jump, a sawtooth and slow growth are not growth', () => {
    const jump = samples([0, 1, 2, 3, 4, 5, 6].map((m) => [m * minute, 1, m === 0 ? 100 : 400]));
    expect(memoryGrowthOver(jump, 20, 6 * minute)).toBeNull();
    const sawtooth = samples([0, 1, 2, 3, 4, 5, 6].map((m) => [m * minute, 1, 100 + (m % 2 === 0 ? m * 40 : 0)]));
    expect(memoryGrowthOver(sawtooth, 20, 6 * minute)).toBeNull();
    const slow = samples([0, 1, 2, 3, 4, 5, 6].map((m) => [m * minute, 1, 100 + m]));
    expect(memoryGrowthOver(slow, 20, 6 * minute)).toBeNull();
  });

  it('needs the whole window of history and most steps rising', () => {
    const short = samples([0, 1, 2].map((m) => [m * minute, 1, 100 + m * 50]));
    expect(memoryGrowthOver(short, 20, 6 * minute)).toBeNull();
    expect(GROWTH_STEP_SHARE).toBeGreaterThan(0.5);
  });
});

describe('identityKey', () => {
  it('spells pid and start time, so a recycled pid is another key', () => {
    expect(identityKey({ pid: 42, startTime: '1000' })).toBe('42:1000');
    expect(identityKey({ pid: 42, startTime: '1001' })).not.toBe(identityKey({ pid: 42, startTime: '1000' }));
  });
});
