import { describe, expect, it } from 'vitest';
import { OUTPUT_TAIL_BYTES } from '../../src/run/output-tail.js';
import { useProcessTracker } from '../helpers/index.js';
import { nodeScript, startTracked } from './run-helpers.js';

/** 800 chunks of 64 KiB: 50 MiB on stdout, written with backpressure. */
const FIFTY_MB_WRITER = `
const chunk = Buffer.alloc(64 * 1024, 97);
let left = 800;
function write() {
  while (left > 0) {
    left -= 1;
    if (!process.stdout.write(chunk)) return process.stdout.once('drain', write);
  }
  process.stdout.write('END\\n');
  process.stderr.write('done writing\\n');
}
write();
`;

describe('captured output', () => {
  const tracker = useProcessTracker();

  it('decodes invalid UTF-8 with replacement characters and joins a character split across writes', async () => {
    const script = `
      process.stdout.write(Buffer.from([0x61, 0xff, 0x62, 0xe2, 0x82]));
      setTimeout(() => process.stdout.write(Buffer.from([0xac, 0x0a])), 100);
      process.stderr.write(Buffer.from([0xc3, 0x28, 0x0a]));
    `;
    const outcome = await startTracked(tracker, nodeScript(script)).outcome;
    expect(outcome.classification).toBe('ok');
    expect(outcome.stdoutTail).toBe('a\uFFFDb€\n');
    expect(outcome.stderrTail).toBe('\uFFFD(\n');
  });

  it('drains 50 MB without deadlock and keeps bounded tails', async () => {
    const heapBefore = process.memoryUsage().heapUsed;
    const outcome = await startTracked(tracker, { ...nodeScript(FIFTY_MB_WRITER), timeoutSeconds: 60 }).outcome;
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
    expect(outcome.classification).toBe('ok');
    expect(Buffer.byteLength(outcome.stdoutTail)).toBe(OUTPUT_TAIL_BYTES);
    expect(outcome.stdoutTail.endsWith('aaaaEND\n')).toBe(true);
    expect(outcome.stderrTail).toBe('done writing\n');
    // Holding the output would cost > 50 MB; a bounded tail costs a few hundred KiB plus garbage not yet collected.
    expect(heapGrowth).toBeLessThan(40 * 1024 * 1024);
  }, 90_000);
});
