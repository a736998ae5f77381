import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FLAG_SETTINGS,
  FLAG_SETTINGS_STORAGE_KEY,
  loadFlagSettings,
  MAX_FLAG_MINUTES,
  parseFlagSettings,
} from '../src/model/flag-settings';
import type { Sample } from '../src/model/history';
import { cpuSpinFlag, describeSeries, type FlagSettings, flagsOf, memoryGrowthFlag, trendOf } from '../src/model/trend';

const MIB = 1024 * 1024;
const settings: FlagSettings = { cpuPercent: 90, cpuMinutes: 3, memoryMibPerMinute: 20, memoryMinutes: 5 };

/** One sample every `stepMs` for `minutes`, values from the functions. */
function series(minutes: number, cpu: (i: number) => number, memoryMib: (i: number) => number, stepMs = 5_000) {
  const samples: Sample[] = [];
  const count = Math.floor((minutes * 60_000) / stepMs) + 1;
  for (let i = 0; i < count; i += 1)
    samples.push({ atMs: 1_000_000 + i * stepMs, cpuPercent: cpu(i), memoryBytes: memoryMib(i) * MIB });
  return samples;
}

describe('trend', () => {
  it('reads rising, falling and steady curves', () => {
    expect(trendOf([1, 2, 3, 4, 5, 6])).toBe('rising');
    expect(trendOf([60, 50, 40, 30, 20])).toBe('falling');
    expect(trendOf([50, 51, 49, 50, 50])).toBe('steady');
    expect(trendOf([0, 0, 0])).toBe('steady');
    expect(trendOf([1, 9])).toBe('steady'); // too few samples to call it
  });

  it('says the latest value and the trend in words', () => {
    expect(describeSeries('CPU', [10, 20, 30, 40], 3_000)).toBe('CPU 40.0 %, rising over the last 3 s');
    expect(describeSeries('Memory', [3 * MIB, 2 * MIB, MIB], 2_000)).toBe('Memory 1.0 MiB, falling over the last 2 s');
    expect(describeSeries('CPU', [], 0)).toBe('CPU: no samples yet');
    expect(describeSeries('CPU', [5], 0)).toBe('CPU 5.0 %, too few samples for a trend');
    // A final curve (an ended session's) never reads as the present.
    expect(describeSeries('CPU', [10, 20, 30, 40], 3_000, true)).toBe(
      'CPU 40.0 % at its end, rising over its last 3 s',
    );
    expect(describeSeries('Memory', [], 0, true)).toBe('Memory: no samples before it ended');
  });
});

describe('flags', () => {
  it('flags a core spun at or above the threshold for the whole window', () => {
    const spin = series(
      4,
      () => 99,
      () => 100,
    );
    const flag = cpuSpinFlag(spin, settings);
    expect(flag?.kind).toBe('cpu');
    expect(flag?.reason).toContain('90 % for 3 min');
  });

  it('does not flag a spin shorter than the window, or one with a dip inside it', () => {
    expect(
      cpuSpinFlag(
        series(
          2,
          () => 100,
          () => 100,
        ),
        settings,
      ),
    ).toBeNull();
    const dip = series(
      4,
      (i) => (i === 40 ? 20 : 100),
      () => 100,
    );
    expect(cpuSpinFlag(dip, settings)).toBeNull();
    // A dip before the window does not matter.
    const early = series(
      6,
      (i) => (i === 1 ? 0 : 100),
      () => 100,
    );
    expect(cpuSpinFlag(early, settings)?.kind).toBe('cpu');
  });

  it('flags memory that keeps growing faster than the threshold', () => {
    const leak = series(
      6,
      () => 1,
      (i) => 100 + i * 3 + (i % 5 === 0 ? -1 : 0),
    ); // ~36 MiB/min, mostly rising
    const flag = memoryGrowthFlag(leak, settings);
    expect(flag?.kind).toBe('memory');
    expect(flag?.reason).toMatch(/MiB\/min, at least 20/);
  });

  it('does not flag slow growth, a sawtooth, or a single jump followed by a plateau', () => {
    expect(
      memoryGrowthFlag(
        series(
          6,
          () => 1,
          (i) => 100 + i * 0.5,
        ),
        settings,
      ),
    ).toBeNull();
    const sawtooth = series(
      6,
      () => 1,
      (i) => 100 + (i % 2 === 0 ? i * 4 : 0),
    );
    expect(memoryGrowthFlag(sawtooth, settings)).toBeNull();
    // 300 MiB in the window is fast on average, but it rose once and then stayed flat.
    const jumpThenFlat = series(
      6,
      () => 1,
      (i) => (i < 30 ? 100 : 400),
    );
    expect(memoryGrowthFlag(jumpThenFlat, settings)).toBeNull();
    // The same rise spread over the window is a growth.
    expect(
      memoryGrowthFlag(
        series(
          6,
          () => 1,
          (i) => 100 + i * 5,
        ),
        settings,
      )?.kind,
    ).toBe('memory');
  });

  it('raises nothing for an idle process', () => {
    expect(
      flagsOf(
        series(
          10,
          () => 0.1,
          () => 50,
        ),
        settings,
      ),
    ).toEqual([]);
  });
});

describe('flag settings', () => {
  it('accepts valid thresholds and names every bad field', () => {
    const ok = parseFlagSettings({ cpuPercent: '150', cpuMinutes: '2', memoryMibPerMinute: '5', memoryMinutes: '4' });
    expect(ok).toEqual({
      ok: true,
      settings: { cpuPercent: 150, cpuMinutes: 2, memoryMibPerMinute: 5, memoryMinutes: 4 },
    });
    const bad = parseFlagSettings({
      cpuPercent: 'abc',
      cpuMinutes: '0',
      memoryMibPerMinute: '',
      memoryMinutes: String(MAX_FLAG_MINUTES + 1),
    });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.errors.cpuPercent).toBe('enter a number');
      expect(bad.errors.cpuMinutes).toMatch(/between 1 and/);
      expect(bad.errors.memoryMibPerMinute).toBe('enter a number');
      expect(bad.errors.memoryMinutes).toBe(`between 1 and ${MAX_FLAG_MINUTES}`);
    }
  });

  it('falls back to the defaults for a stored value that does not fit', () => {
    localStorage.setItem(FLAG_SETTINGS_STORAGE_KEY, JSON.stringify({ cpuPercent: -5 }));
    expect(loadFlagSettings()).toEqual(DEFAULT_FLAG_SETTINGS);
    localStorage.setItem(FLAG_SETTINGS_STORAGE_KEY, '{not json');
    expect(loadFlagSettings()).toEqual(DEFAULT_FLAG_SETTINGS);
    localStorage.setItem(FLAG_SETTINGS_STORAGE_KEY, JSON.stringify({ ...DEFAULT_FLAG_SETTINGS, cpuMinutes: 7 }));
    expect(loadFlagSettings().cpuMinutes).toBe(7);
    localStorage.removeItem(FLAG_SETTINGS_STORAGE_KEY);
  });
});
