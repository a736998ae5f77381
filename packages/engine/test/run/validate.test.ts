import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { startRun } from '../../src/run/start-run.js';
import { RunSpecError } from '../../src/run/validate.js';
import { makeTempDir, removeTempDir } from '../helpers/index.js';
import { cookieCarriers } from './stub-owner.js';

describe('run spec validation', () => {
  it.each([
    [0, 'timeout 0 is below MIN_TIMEOUT_SECONDS (1)'],
    [5401, 'timeout 5401 is above MAX_TIMEOUT_SECONDS (5400)'],
    [null, 'timeout null is not allowed'],
    [Number.NaN, 'timeout NaN is not a number'],
  ])('refuses timeout %s before anything launches', (timeoutSeconds, message) => {
    const dir = makeTempDir();
    const marker = join(dir, 'launched');
    const readEntry = vi.fn(() => null);
    const createOwner = vi.fn();
    const runId = `validate-${String(timeoutSeconds)}-${process.pid}`;
    try {
      expect(() =>
        startRun(
          { command: 'touch', args: [marker], timeoutSeconds, runId },
          { readEntry, createOwner: createOwner as never },
        ),
      ).toThrow(RunSpecError);
      expect(() => startRun({ command: 'touch', args: [marker], timeoutSeconds })).toThrow(message);
      // Nothing was spawned: no identity read, no owner, no process carries the cookie, no file appeared.
      expect(readEntry).not.toHaveBeenCalled();
      expect(createOwner).not.toHaveBeenCalled();
      expect(cookieCarriers(runId)).toEqual([]);
      expect(existsSync(marker)).toBe(false);
    } finally {
      removeTempDir(dir);
    }
  });

  it('refuses a negative grace and an empty command with a message saying how to fix it', () => {
    expect(() => startRun({ command: 'true', graceSeconds: -1 })).toThrow('grace -1 is below MIN_GRACE_SECONDS (0)');
    expect(() => startRun({ command: '' })).toThrow(/command is empty/);
  });
});
