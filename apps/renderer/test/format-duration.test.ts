import { describe, expect, it } from 'vitest';
import { formatCountdown, formatDuration, formatOffset } from '../src/model/format';

describe('formatDuration: one format everywhere', () => {
  it('keeps a tenth under ten seconds, so 0.3 s never reads as 0 s', () => {
    expect(formatDuration(300)).toBe('0.3 s');
    expect(formatDuration(0)).toBe('0 s');
    expect(formatDuration(4_000)).toBe('4 s');
    expect(formatDuration(4_500)).toBe('4.5 s');
  });
  it('spells units with a space: 12 s, 4 min 05 s, 2 h 03 min', () => {
    expect(formatDuration(12_000)).toBe('12 s');
    expect(formatDuration(119_000)).toBe('1 min 59 s');
    expect(formatDuration(245_000)).toBe('4 min 05 s');
    expect(formatDuration((2 * 3600 + 3 * 60) * 1000)).toBe('2 h 03 min');
  });

  it('counts down in the same format, whole seconds rounded up', () => {
    expect(formatCountdown(65_000)).toBe('1 min 05 s');
    expect(formatCountdown(64_001)).toBe('1 min 05 s');
    expect(formatCountdown(9_100)).toBe('10 s');
    expect(formatCountdown(400)).toBe('1 s');
    expect(formatCountdown(-5)).toBe('0 s');
    expect(formatCountdown((2 * 3600 + 3 * 60) * 1000)).toBe('2 h 03 min');
  });
  it('keeps milliseconds and hundredths where a kill timeline needs them, the same format beyond', () => {
    expect(formatDuration(12, { precise: true })).toBe('12 ms');
    expect(formatDuration(2_013, { precise: true })).toBe('2.01 s');
    expect(formatDuration(65_000, { precise: true })).toBe('1 min 05 s');
    expect(formatOffset(0)).toBe('+0 ms');
    expect(formatOffset(2_013)).toBe('+2.01 s');
    expect(formatOffset(12_340)).toBe('+12 s');
  });
});
