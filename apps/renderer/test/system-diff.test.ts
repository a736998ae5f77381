import { describe, expect, it } from 'vitest';
import { identityKey } from '../src/model/identity';
import { applySystemDiff, applySystemDiffWithShape } from '../src/store/system-diff';
import { makeProcess } from './fixtures';

describe('applySystemDiff', () => {
  const a = makeProcess({ pid: 10 });
  const b = makeProcess({ pid: 11 });

  it('replaces the whole table on a full diff', () => {
    const previous = new Map([[identityKey(a), a]]);
    const next = applySystemDiff(previous, { type: 'systemDiff', full: true, upserts: [b], removed: [] });
    expect([...next.keys()]).toEqual([identityKey(b)]);
  });

  it('returns a new Map and leaves the previous one untouched', () => {
    const previous = new Map([[identityKey(a), a]]);
    const next = applySystemDiff(previous, { type: 'systemDiff', full: false, upserts: [b], removed: [] });
    expect(next).not.toBe(previous);
    expect(previous.size).toBe(1);
    expect(next.size).toBe(2);
  });

  it('removes by pid:startTime and updates rows in place by identity', () => {
    const previous = new Map([
      [identityKey(a), a],
      [identityKey(b), b],
    ]);
    const busier = { ...a, cpuPercent: 88 };
    const next = applySystemDiff(previous, {
      type: 'systemDiff',
      full: false,
      upserts: [busier],
      removed: [identityKey(b)],
    });
    expect(next.size).toBe(1);
    expect(next.get(identityKey(a))?.cpuPercent).toBe(88);
  });

  it('treats a reused pid with a new start time as a new process, not an edit', () => {
    const previous = new Map([[identityKey(a), a]]);
    const reused = makeProcess({ pid: 10, startTime: '99999', command: 'sleep' });
    const next = applySystemDiff(previous, { type: 'systemDiff', full: false, upserts: [reused], removed: [] });
    expect(next.get(identityKey(a))?.command).toBe('node');
    expect(next.get('10:99999')?.command).toBe('sleep');
  });

  it('ignores removals of keys it never had', () => {
    const previous = new Map([[identityKey(a), a]]);
    const next = applySystemDiff(previous, { type: 'systemDiff', full: false, upserts: [], removed: ['999:1'] });
    expect(next.size).toBe(1);
  });

  it('reports a shape change only when processes come, go or move', () => {
    const previous = new Map([
      [identityKey(a), a],
      [identityKey(b), b],
    ]);
    const diff = (upserts: (typeof a)[], removed: string[] = []) => ({
      type: 'systemDiff' as const,
      full: false,
      upserts,
      removed,
    });
    expect(applySystemDiffWithShape(previous, diff([{ ...a, cpuPercent: 50 }])).shapeChanged).toBe(false);
    expect(applySystemDiffWithShape(previous, diff([{ ...a, ppid: 11 }])).shapeChanged).toBe(true);
    expect(applySystemDiffWithShape(previous, diff([makeProcess({ pid: 12 })])).shapeChanged).toBe(true);
    expect(applySystemDiffWithShape(previous, diff([], [identityKey(b)])).shapeChanged).toBe(true);
    expect(applySystemDiffWithShape(previous, diff([], ['999:1'])).shapeChanged).toBe(false);
  });
});
