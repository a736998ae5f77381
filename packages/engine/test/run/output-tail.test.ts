import { describe, expect, it } from 'vitest';
import { createOutputTail, keepLastUtf8Bytes } from '../../src/run/output-tail.js';

describe('output tail', () => {
  it('joins a multibyte character split across chunks and replaces invalid bytes', () => {
    const tail = createOutputTail(1024);
    tail.push(Uint8Array.from([0x61, 0xff, 0x62, 0xe2, 0x82]));
    tail.push(Uint8Array.from([0xac, 0x63]));
    expect(tail.finish()).toBe('a\uFFFDb€c');
  });

  it('keeps only the last limit bytes, cut on a character boundary', () => {
    const tail = createOutputTail(10);
    for (let i = 0; i < 100; i += 1) tail.push(Buffer.from(`line${i}\n`));
    const text = tail.finish();
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(10);
    expect(text.endsWith('line99\n')).toBe(true);
    expect(tail.totalBytes).toBeGreaterThan(500);
    expect(keepLastUtf8Bytes('a€€', 4)).toBe('€');
  });
});
