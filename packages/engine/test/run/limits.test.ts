/**
 * Each runaway limit trips on a real worker whose offending part sits in its own session, the run
 * is classified by the limit, and nothing of the tree survives; a worker under every limit runs
 * to completion untouched. Limits and rates are chosen so that each test is about the limit, not
 * about speed: the offender keeps offending (it stays over the limit) until a refresh sees it,
 * and a generous timeout only bounds the test.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Run, RunOutcome } from '../../src/run/types.js';
import { fixturePath, isRunning, readReports, useProcessTracker } from '../helpers/index.js';
import { nodeFixture, nodeScript, startTracked, useFixtureEnv } from './run-helpers.js';
import { cookieCarriers } from './stub-owner.js';

/** Only bounds a test whose limit failed to trip; every limit here trips long before it. */
const BOUNDING_TIMEOUT_SECONDS = 60;
const MIB = 1024 * 1024;
const LIMIT_TEST_TIMEOUT_MS = 90_000;

async function expectNothingSurvives(run: Run, outcome: RunOutcome, reportFile: string): Promise<void> {
  expect(outcome.survivors).toEqual([]);
  expect(cookieCarriers(run.id)).toEqual([]);
  for (const reported of readReports(reportFile)) expect(isRunning(reported.pid)).toBe(false);
}

describe('run limits (real processes)', () => {
  const tracker = useProcessTracker();
  const fixtureEnv = useFixtureEnv();

  it(
    'max-memory: a balloon in a setsid grandchild ends the whole tree as memory_limit',
    async () => {
      const { reportFile, env } = fixtureEnv();
      // 16 MiB every 50 ms up to 640 MiB: the tree (two node processes, ~80 MiB) passes 256 MiB and stays over it.
      const run = startTracked(tracker, {
        ...nodeFixture('balloon.mjs', ['--setsid', '16', '50', '640']),
        env,
        timeoutSeconds: BOUNDING_TIMEOUT_SECONDS,
        limits: { maxMemoryBytes: 256 * MIB },
      });
      const outcome = await run.outcome;
      expect(outcome.classification).toBe('memory_limit');
      expect(outcome.limit?.name).toBe('max-memory');
      expect(outcome.limit?.value).toBe(256 * MIB);
      expect(outcome.limit?.observed).toBeGreaterThan(256 * MIB);
      expect(outcome.limitEnforcement).toBe('polling');
      expect(outcome.error).toMatch(/passed max-memory 256\.0 MiB/);
      await expectNothingSurvives(run, outcome, reportFile);
    },
    LIMIT_TEST_TIMEOUT_MS,
  );

  it(
    'max-procs: a bounded setsid fork loop ends as process_limit',
    async () => {
      const { dir, reportFile, env } = fixtureEnv();
      // Up to 40 processes, every one in its own session; the limit is 8 live members.
      const run = startTracked(tracker, {
        command: fixturePath('fork-loop.sh'),
        args: [join(dir, 'count'), '40', '4', '--setsid'],
        env,
        timeoutSeconds: BOUNDING_TIMEOUT_SECONDS,
        limits: { maxProcs: 8 },
      });
      const outcome = await run.outcome;
      expect(outcome.classification).toBe('process_limit');
      expect(outcome.limit).toMatchObject({ name: 'max-procs', value: 8 });
      expect(outcome.limit?.observed).toBeGreaterThan(8);
      await expectNothingSurvives(run, outcome, reportFile);
    },
    LIMIT_TEST_TIMEOUT_MS,
  );

  it(
    'max-cpu: a spinning setsid grandchild ends as cpu_limit',
    async () => {
      const { reportFile, env } = fixtureEnv();
      const run = startTracked(tracker, {
        ...nodeFixture('cpu-spin.mjs', ['--setsid']),
        env,
        timeoutSeconds: BOUNDING_TIMEOUT_SECONDS,
        limits: { maxCpuSeconds: 1.5 },
      });
      const outcome = await run.outcome;
      expect(outcome.classification).toBe('cpu_limit');
      expect(outcome.limit).toMatchObject({ name: 'max-cpu', value: 1.5 });
      expect(outcome.limit?.observed).toBeGreaterThan(1.5);
      await expectNothingSurvives(run, outcome, reportFile);
    },
    LIMIT_TEST_TIMEOUT_MS,
  );

  it(
    'max-cpu counts members that already exited: short bursts, none over the limit alone, add up',
    async () => {
      const { reportFile, env } = fixtureEnv();
      // 20 bursts of 400 ms CPU, one after another, each in a child that exits: no live member
      // ever holds more than 0.4 s, so only the exited members' CPU can pass 1.5 s.
      const run = startTracked(tracker, {
        ...nodeFixture('cpu-spin.mjs', ['--bursts', '20', '400']),
        env,
        timeoutSeconds: BOUNDING_TIMEOUT_SECONDS,
        limits: { maxCpuSeconds: 1.5 },
      });
      const outcome = await run.outcome;
      expect(outcome.classification).toBe('cpu_limit');
      expect(outcome.limit?.observed).toBeGreaterThan(1.5);
      await expectNothingSurvives(run, outcome, reportFile);
    },
    LIMIT_TEST_TIMEOUT_MS,
  );

  it(
    'idle-timeout: a silent hang (root and child) ends as stalled',
    async () => {
      const { reportFile, env } = fixtureEnv();
      const run = startTracked(tracker, {
        ...nodeFixture('spawn-children.mjs', ['--detached', '1', 'run-forever.mjs']),
        env,
        timeoutSeconds: BOUNDING_TIMEOUT_SECONDS,
        limits: { idleTimeoutSeconds: 1 },
      });
      const outcome = await run.outcome;
      expect(outcome.classification).toBe('stalled');
      expect(outcome.limit).toMatchObject({ name: 'idle-timeout', value: 1 });
      expect(outcome.limit?.observed).toBeGreaterThanOrEqual(1);
      await expectNothingSurvives(run, outcome, reportFile);
    },
    LIMIT_TEST_TIMEOUT_MS,
  );

  it(
    'a worker under every limit runs to completion untouched and is ok',
    async () => {
      // Output every 100 ms for ~1.5 s, 32 MiB held, two short children: far from each limit.
      const script = `
        const { spawnSync } = require('node:child_process');
        const held = Buffer.alloc(32 * 1024 * 1024, 1);
        spawnSync(process.execPath, ['-e', '0']);
        spawnSync(process.execPath, ['-e', '0']);
        let n = 0;
        const beat = setInterval(() => {
          console.log('beat', n, held.length);
          if (++n === 15) { clearInterval(beat); process.exit(0); }
        }, 100);`;
      const run = startTracked(tracker, {
        ...nodeScript(script),
        timeoutSeconds: BOUNDING_TIMEOUT_SECONDS,
        limits: { maxMemoryBytes: 1024 * MIB, maxProcs: 20, maxCpuSeconds: 30, idleTimeoutSeconds: 20 },
      });
      const outcome = await run.outcome;
      expect(outcome.classification).toBe('ok');
      expect(outcome.exitCode).toBe(0);
      expect(outcome.limit).toBeUndefined();
      expect(outcome.limitEnforcement).toBe('polling');
      expect(outcome.killAttempts).toBe(0);
      expect(outcome.stdoutTail).toContain('beat 14');
    },
    LIMIT_TEST_TIMEOUT_MS,
  );
});
