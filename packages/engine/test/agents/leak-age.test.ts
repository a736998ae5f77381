import { describe, expect, it } from 'vitest';
import { formatAge } from '../../src/agents/leaks/leak-reasons.js';

describe('a leaked process age in a reason', () => {
  it('reads in the UI duration format, never "119s"', () => {
    expect(formatAge(12_000)).toBe('12 s');
    expect(formatAge(119_000)).toBe('1 min 59 s');
    expect(formatAge(245_000)).toBe('4 min 05 s');
    expect(formatAge((11 * 3600 + 12 * 60) * 1000)).toBe('11 h 12 min');
    expect(formatAge((2 * 86_400 + 4 * 3600) * 1000)).toBe('2 d 04 h');
  });
});
