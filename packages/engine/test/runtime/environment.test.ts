/**
 * Linear copies of an environment (runtime/environment.ts). The parser against hand-built blocks;
 * the start environment against what a real child process sees in `process.env`.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAX_ENVIRON_BYTES, readRunCookies } from '../../src/membership/cookie.js';
import { copyEnvironment, EnvironBlock, environmentWith, parseEnvironBlock } from '../../src/runtime/environment.js';
import { useProcessTracker } from '../helpers/index.js';
import { nodeFixture, startTracked } from '../run/run-helpers.js';

const ENGINE_DIST = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
/** Bound on one node child (start-up on a loaded machine). */
const CHILD_TIMEOUT_MS = 25_000;
const MANY = 20_000;

describe('parseEnvironBlock', () => {
  it('splits at the first "=", keeps "=" and empty values, and skips entries that are no variable', () => {
    expect(parseEnvironBlock('A=1\0B=x=y\0C=\0=hidden\0NOEQUALS\0D=ü\0')).toEqual({
      A: '1',
      B: 'x=y',
      C: '',
      D: 'ü',
    });
  });

  it('lets the first of two equal names win, as getenv does', () => {
    expect(parseEnvironBlock('A=first\0A=second')).toEqual({ A: 'first' });
  });

  it('reads an empty block as no variables', () => {
    expect(parseEnvironBlock('')).toEqual({});
  });
});

describe('environmentWith', () => {
  it('puts the leading variables first and lets them win, then the overlay over the base, in the base order', () => {
    for (const base of [{ A: '1', B: '2', C: '3', R: 'base' }, new EnvironBlock('A=1\0B=2\0C=3\0R=base\0')]) {
      const env = environmentWith(base, { B: 'over', R: 'over' }, { R: 'cookie' });
      expect(Object.entries(env)).toEqual([
        ['R', 'cookie'],
        ['B', 'over'],
        ['A', '1'],
        ['C', '3'],
      ]);
    }
  });
});

describe('copyEnvironment', () => {
  it('drops unset values and copies the rest', () => {
    expect(copyEnvironment({ A: '1', B: undefined })).toEqual({ A: '1' });
  });
});

describe.skipIf(process.platform !== 'linux')('readStartEnvironment', () => {
  it(`equals process.env in a process that never changed it, with ${MANY.toLocaleString('en-US')} variables`, () => {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      WITH_EQUALS: 'a=b',
      UNICODE: 'zoë',
    };
    for (let i = 0; i < MANY; i += 1) env[`TW_ENV_TEST_${i}`] = `value-${i}`;
    const script = `import(${JSON.stringify(ENGINE_DIST)}).then((engine) => {
      const start = engine.readStartEnvironment();
      const own = { ...process.env };
      process.stdout.write(JSON.stringify({ same: JSON.stringify(start) === JSON.stringify(own), size: Object.keys(start).length }));
    });`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      env,
      encoding: 'utf8',
      timeout: CHILD_TIMEOUT_MS,
    });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({ same: true, size: MANY + 3 });
  });
});

describe.skipIf(process.platform !== 'linux')('a run under an environment larger than a cookie read', () => {
  const tracker = useProcessTracker();

  it('carries its cookies where readRunCookies finds them (within the first MAX_ENVIRON_BYTES)', async () => {
    const env: Record<string, string> = {};
    for (let i = 0; i < MANY; i += 1) env[`TW_ENV_TEST_${i}`] = `value-${i}`;
    expect(Buffer.byteLength(Object.entries(env).join('\0'))).toBeGreaterThan(MAX_ENVIRON_BYTES);
    const run = startTracked(tracker, { ...nodeFixture('run-forever.mjs'), env });
    const pid = run.identity?.pid ?? 0;
    expect(readRunCookies(pid)).toEqual({ runId: run.id, leaseId: run.leaseId });
    run.cancel('test done');
    await run.outcome;
  });
});
