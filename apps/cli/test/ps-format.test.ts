/** The pure parts of `ps` text: the wall-clock START for older processes, and the cut at a width. */
import { describe, expect, it } from 'vitest';
import { fitLine, formatStart } from '../src/commands/ps-format.js';

describe('formatStart', () => {
  const now = new Date(2026, 11, 2, 14, 30, 0);
  it('shows the time today, the day and minute earlier this year, the date before that', () => {
    expect(formatStart(new Date(2026, 11, 2, 9, 5, 7).getTime(), now)).toBe('09:05:07');
    expect(formatStart(new Date(2026, 10, 30, 23, 59, 59).getTime(), now)).toBe('Nov 30 23:59');
    expect(formatStart(new Date(2025, 0, 3, 1, 2, 3).getTime(), now)).toBe('2025-01-03');
  });
  it('says ? when the platform gave no start time', () => {
    expect(formatStart(0, now)).toBe('?');
  });
});

describe('fitLine', () => {
  it('keeps a line that fits and cuts one that does not, ending in …', () => {
    expect(fitLine('abc', 3)).toBe('abc');
    expect(fitLine('abcdef', 4)).toBe('abc…');
  });
  it('never splits a character made of two UTF-16 units', () => {
    expect(fitLine('ab😀😀😀', 4)).toBe('ab😀…');
  });
});
