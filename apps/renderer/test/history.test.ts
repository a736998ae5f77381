import { describe, expect, it } from 'vitest';
import { HistoryBook, SampleRing } from '../src/model/history';

const MIB = 1024 * 1024;

describe('sample ring', () => {
  it('keeps at most its capacity, oldest overwritten first, in time order', () => {
    const ring = new SampleRing(4);
    for (let i = 0; i < 10; i += 1) ring.push({ atMs: 1_000 + i * 1000, cpuPercent: i, memoryBytes: i * MIB });
    expect(ring.size).toBe(4);
    const samples = ring.samples();
    expect(samples.map((sample) => sample.cpuPercent)).toEqual([6, 7, 8, 9]);
    expect(samples.map((sample) => sample.atMs)).toEqual([7_000, 8_000, 9_000, 10_000]);
    expect(samples.map((sample) => sample.memoryBytes / MIB)).toEqual([6, 7, 8, 9]);
    expect(ring.at(0)?.cpuPercent).toBe(6);
    expect(ring.at(3)?.cpuPercent).toBe(9);
    expect(ring.at(4)).toBeUndefined();
    expect(ring.lastAtMs()).toBe(10_000);
  });

  it('refuses a capacity that cannot hold a curve', () => {
    expect(() => new SampleRing(1)).toThrow(/below 2/);
    expect(() => new SampleRing(2.5)).toThrow(RangeError);
  });

  it('keeps wall-clock times exact enough after days of samples', () => {
    const ring = new SampleRing(3);
    const start = 1_700_000_000_000;
    ring.push({ atMs: start, cpuPercent: 1, memoryBytes: 0 });
    ring.push({ atMs: start + 3 * 86_400_000 + 100, cpuPercent: 1, memoryBytes: 0 });
    expect(Math.abs((ring.lastAtMs() ?? 0) - (start + 3 * 86_400_000 + 100))).toBeLessThan(50);
  });
});

describe('history book', () => {
  it('adds a sample per key and pass, and forgets keys that are gone (a recycled pid starts afresh)', () => {
    const book = new HistoryBook(8);
    book.recordPass(1_000, [
      ['10:100', 5, MIB],
      ['11:110', 1, MIB],
    ]);
    book.recordPass(2_000, [
      ['10:100', 6, MIB],
      ['10:100', 99, MIB],
    ]);
    expect(
      book
        .ring('10:100')
        ?.samples()
        .map((sample) => sample.cpuPercent),
    ).toEqual([5, 6]);
    expect(book.ring('11:110')).toBeUndefined();
    book.recordPass(3_000, [['11:110', 2, MIB]]);
    expect(book.ring('11:110')?.size).toBe(1);
    expect(book.size).toBe(1);
  });

  it('stays bounded however many passes arrive', () => {
    const book = new HistoryBook(5);
    for (let i = 0; i < 1_000; i += 1) book.recordPass(i * 1000, [['k', i, 0]]);
    expect(book.ring('k')?.size).toBe(5);
  });

  it('skips passes closer together than its spacing', () => {
    const book = new HistoryBook(10, 5_000);
    expect(book.recordPass(0, [['k', 1, 0]])).toBe(true);
    expect(book.recordPass(4_999, [['k', 2, 0]])).toBe(false);
    expect(book.recordPass(5_000, [['k', 3, 0]])).toBe(true);
    expect(
      book
        .ring('k')
        ?.samples()
        .map((sample) => sample.cpuPercent),
    ).toEqual([1, 3]);
  });

  it('carries kept keys over without a sample, and never invents a ring for one', () => {
    const book = new HistoryBook(8);
    book.recordPass(1_000, [['a', 1, 0]]);
    book.recordPass(2_000, [], ['a', 'never-seen']);
    book.recordPass(3_000, [['a', 3, 0]], ['a']);
    expect(
      book
        .ring('a')
        ?.samples()
        .map((sample) => sample.cpuPercent),
    ).toEqual([1, 3]);
    expect(book.ring('never-seen')).toBeUndefined();
    book.recordPass(4_000, []);
    expect(book.size).toBe(0);
  });
});
