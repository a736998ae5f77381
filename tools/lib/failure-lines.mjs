/**
 * The lines of a test run's output that name a failed test, gathered as the output passes through
 * in chunks (tools/test-all.mjs streams the unit suite and repeats these above its summary, so a
 * CI record that keeps only the log's tail still names every failed test).
 */
import { stripVTControlCharacters } from 'node:util';

/** At most this many lines are kept. */
const LINES_KEPT = 40;
/** Vitest's line naming a failed test file or test, and its unhandled-errors heading. */
const FAILED_TEST_LINE = /^\s*(FAIL\s|.*\bUnhandled (Rejection|Error)s?\b)/;
/** The line that says why: the first error line after a FAIL line. */
const ERROR_LINE = /^\s*(\w*Error|Caused by|Timeout|Test timed out)\b/;

/**
 * Gathers the lines that name a failed test and the first error line after each (ANSI colours
 * stripped; a line split across chunks is joined first).
 * @returns {{ add(chunk: Buffer | string): void, lines(): string[] }}
 */
export function failureLineCollector() {
  const kept = [];
  let partial = '';
  let wantError = false;
  const keep = (line) => {
    if (kept.length < LINES_KEPT) kept.push(line);
  };
  return {
    add(chunk) {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const raw of lines) {
        const line = stripVTControlCharacters(raw).trimEnd();
        if (FAILED_TEST_LINE.test(line)) {
          keep(line);
          wantError = true;
        } else if (wantError && ERROR_LINE.test(line)) {
          keep(`    ${line.trim()}`);
          wantError = false;
        }
      }
    },
    lines: () => [...kept],
  };
}
