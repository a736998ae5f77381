import { describe, expect, it } from 'vitest';
import { formatDuration } from '../src/model/format';

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
});
