/**
 * `run` under a huge environment: every variable reaches the worker unchanged, through the CLI's
 * linear copy (/proc/self/environ), the lease's start message and the guardian's launch (which no
 * longer lays its own `process.env` under the holder's). How long it takes is the bench's job
 * (`npm run bench -- env`), not a test's.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI_MAIN, CLI_RUN_TIMEOUT_MS, collectOutput } from '../../../test-support/cli-helpers.js';
import { fixturePath, makeTempDir, removeTempDir, useProcessTracker } from '../../../test-support/index.js';

const MANY = 20_000;
/** Longer than any page, below Linux's 128 kB bound on one exec string. */
const LONG_VALUE_CHARS = 100_000;
const COOKIES = ['TREEWARDEN_RUN_ID', 'TREEWARDEN_LEASE_ID'];

/** The test runner's environment as a plain object, without run cookies it may carry itself. */
function ownEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key in process.env) {
    const value = process.env[key];
    if (value !== undefined && !COOKIES.includes(key)) env[key] = value;
  }
  return env;
}

/** `NAME=value\0…` as exec hands it to a process, in the object's order. */
function environBytes(env: Readonly<Record<string, string>>): Buffer {
  return Buffer.from(
    Object.entries(env)
      .map(([key, value]) => `${key}=${value}\0`)
      .join(''),
    'utf8',
  );
}

describe('run with a huge environment', () => {
  const tracker = useProcessTracker();
  beforeAll(assertBuilt);

  it(`passes all ${MANY.toLocaleString('en-US')} variables, and odd values, to the worker unchanged`, async () => {
    const stateDir = makeTempDir();
    try {
      const env: Record<string, string> = {};
      for (const key in process.env) {
        const value = process.env[key];
        if (value !== undefined) env[key] = value;
      }
      env.TREEWARDEN_HOME = stateDir;
      env.TW_ODD = 'a=b c\tzoë';
      for (let i = 0; i < MANY; i += 1) env[`TW_ENV_VAR_${i}`] = `value-${i}`;
      const worker = 'env | grep -c "^TW_ENV_VAR_"; printf "%s|%s\\n" "$TW_ODD" "$TW_ENV_VAR_19999"';
      const child = spawn(process.execPath, [CLI_MAIN, 'run', '--timeout', '60', '--', 'sh', '-c', worker], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      tracker.trackChild(child);
      const result = await collectOutput(child, {
        description: 'treewarden run under a huge environment',
        timeoutMs: CLI_RUN_TIMEOUT_MS,
        killOnTimeout: true,
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`${MANY}\na=b c\tzoë|value-${MANY - 1}\n`);
    } finally {
      removeTempDir(stateDir);
    }
  });

  it('gives the worker exactly the bytes of the environment the CLI got, cookies added, and no secret on a command line', async () => {
    const stateDir = makeTempDir();
    const out = makeTempDir('tw-probe-');
    try {
      const env = ownEnvironment();
      env.TREEWARDEN_HOME = stateDir;
      env.TW_PROBE_OUT = out;
      env.TW_PROBE_SECRET = `tw-secret-${process.pid}-${Date.now()}`;
      env.TW_EQUALS = 'a=b==c=';
      env.TW_EMPTY = '';
      env.TW_UNICODE = 'zoë ☃ 𝄞';
      env.TW_LONG = 'x'.repeat(LONG_VALUE_CHARS);
      for (let i = 0; i < MANY; i += 1) env[`TW_ENV_VAR_${i}`] = `value-${i}`;
      const child = spawn(
        process.execPath,
        [CLI_MAIN, 'run', '--timeout', '60', '--', process.execPath, fixturePath('proc-self-probe.mjs')],
        { env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      tracker.trackChild(child);
      const result = await collectOutput(child, {
        description: 'treewarden run of the /proc/self probe',
        timeoutMs: CLI_RUN_TIMEOUT_MS,
        killOnTimeout: true,
      });
      expect(result.stderr).toContain('treewarden: ok');
      const entries = readFileSync(join(out, 'environ')).toString('latin1').split('\0');
      expect(entries.pop()).toBe(''); // the block ends with NUL
      // The cookies come first (within the bounded prefix that cookie readers read), then every
      // variable of the caller in the caller's order.
      const cookies = entries.splice(0, COOKIES.length);
      expect(cookies.map((entry) => entry.slice(0, entry.indexOf('=')))).toEqual(COOKIES);
      const rest = Buffer.from(entries.map((entry) => `${entry}\0`).join(''), 'latin1');
      expect(rest.equals(environBytes(env))).toBe(true);
      expect(JSON.parse(readFileSync(join(out, 'secret-hits.json'), 'utf8'))).toEqual([]);
      // The guardian (the worker's parent) started with a few variables of its own, not the 620 kB.
      const guardianNames = readFileSync(join(out, 'parent-environ'), 'utf8')
        .split('\0')
        .map((entry) => entry.slice(0, entry.indexOf('=')));
      expect(guardianNames).toContain('PATH');
      expect(guardianNames).not.toContain('TW_PROBE_SECRET');
      expect(guardianNames.length).toBeLessThan(MANY / 100);
    } finally {
      removeTempDir(stateDir);
      removeTempDir(out);
    }
  });
});
