/** The MCP server's per-run output log: bounded, offsets that never go back, `since` and `tail`. */
import { describe, expect, it } from 'vitest';
import { createOutputLog } from '../src/mcp/output-log.js';

describe('createOutputLog', () => {
  it('reads the tail, then only what came after a nextOffset', () => {
    const log = createOutputLog(100);
    log.append('hello ');
    log.append('world\n');
    expect(log.read({ tail: 6 })).toEqual({ text: 'world\n', fromOffset: 6, nextOffset: 12, skippedChars: 6 });
    const first = log.read({ tail: 1000 });
    expect(first).toMatchObject({ text: 'hello world\n', fromOffset: 0, skippedChars: 0 });
    log.append('more');
    expect(log.read({ tail: 1000, since: first.nextOffset })).toEqual({
      text: 'more',
      fromOffset: 12,
      nextOffset: 16,
      skippedChars: 0,
    });
    expect(log.read({ tail: 1000, since: 99 })).toMatchObject({ text: '', nextOffset: 16 });
  });

  it('stays bounded and says how much a reader behind the kept text missed', () => {
    const log = createOutputLog(10);
    for (let index = 0; index < 100; index += 1) log.append(String(index % 10));
    expect(log.totalChars).toBe(100);
    const read = log.read({ tail: 1000, since: 0 });
    expect(read.text.length).toBeLessThanOrEqual(20);
    expect(read.text.length).toBeGreaterThanOrEqual(10);
    expect(read.fromOffset + read.text.length).toBe(100);
    expect(read.skippedChars).toBe(read.fromOffset);
  });

  it('never starts its kept text with half a surrogate pair', () => {
    const log = createOutputLog(5);
    log.append('ab');
    log.append('😀😀😀😀😀'); // 12 UTF-16 units in all: the trim at 12 - 5 = 7 lands inside a pair
    const text = log.read({ tail: 1000 }).text;
    const first = text.charCodeAt(0);
    expect(first >= 0xdc00 && first <= 0xdfff).toBe(false);
  });

  it('tells subscribers each text as it arrives until they unsubscribe', () => {
    const log = createOutputLog();
    const seen: string[] = [];
    const stop = log.subscribe((text) => seen.push(text));
    log.append('a');
    stop();
    log.append('b');
    expect(seen).toEqual(['a']);
  });
});
