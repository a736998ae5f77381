/**
 * `npm test` repeats the lines naming failed unit tests above its summary
 * (tools/lib/failure-lines.mjs): fed vitest's own failure report in arbitrary chunks, the collector
 * keeps each FAIL line and the error under it, and nothing else.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

interface FailureLineCollector {
  add(chunk: Buffer | string): void;
  lines(): string[];
}
// A plain module of the repo's tools (not a package): loaded by its path.
const TOOL = pathToFileURL(join(import.meta.dirname, '..', '..', '..', 'tools', 'lib', 'failure-lines.mjs')).href;
const { failureLineCollector } = (await import(TOOL)) as { failureLineCollector: () => FailureLineCollector };

const RED = '\u001b[31m';
const RESET = '\u001b[39m';
/** The shape of vitest 4's report of two failed tests (colours included, as with FORCE_COLOR). */
const REPORT = [
  ' ✓  node  packages/engine/test/table/trees.test.ts (12 tests) 40ms',
  ` ${RED}❯${RESET}  node  packages/engine/test/table/idle-marks.test.ts (5 tests | 1 failed) 2210ms`,
  '⎯⎯⎯⎯⎯⎯⎯ Failed Tests 2 ⎯⎯⎯⎯⎯⎯⎯',
  '',
  ` ${RED}FAIL${RESET}   node  packages/engine/test/table/idle-marks.test.ts > idle check > shows every read the CPU`,
  `${RED}AssertionError${RESET}: expected 130 to be greater than 130`,
  ' ❯ packages/engine/test/table/idle-marks.test.ts:103:19',
  '',
  ' FAIL   node  apps/cli/test/orphans.test.ts > orphans > lists the leak',
  'Error: Test timed out in 30000ms.',
  '',
  ' Test Files  2 failed | 254 passed (256)',
  '',
].join('\n');

function collect(chunkSize: number): string[] {
  const collector = failureLineCollector();
  for (let at = 0; at < REPORT.length; at += chunkSize) collector.add(Buffer.from(REPORT.slice(at, at + chunkSize)));
  return collector.lines();
}

describe('the failed-test lines npm test repeats', () => {
  it('keeps each FAIL line and its error line, colours stripped, whatever the chunks', () => {
    const expected = [
      ' FAIL   node  packages/engine/test/table/idle-marks.test.ts > idle check > shows every read the CPU',
      '    AssertionError: expected 130 to be greater than 130',
      ' FAIL   node  apps/cli/test/orphans.test.ts > orphans > lists the leak',
      '    Error: Test timed out in 30000ms.',
    ];
    for (const size of [1, 7, 64, REPORT.length]) expect(collect(size)).toEqual(expected);
  });

  it("keeps vitest's unhandled-errors heading", () => {
    const collector = failureLineCollector();
    collector.add(
      '⎯⎯⎯⎯ Unhandled Errors ⎯⎯⎯⎯\n\nVitest caught 1 unhandled error during the test run.\nTypeError: x is not a function\n',
    );
    expect(collector.lines()).toEqual(['⎯⎯⎯⎯ Unhandled Errors ⎯⎯⎯⎯', '    TypeError: x is not a function']);
  });
});
