/**
 * `treewarden run`'s limits as the user sees them: bad values exit 2 before anything launches, a
 * limit that trips exits 124 with `limit` in --json (and a summary without it), and nothing of the
 * tree survives.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CGROUP_HOME_NAME, probeCgroup } from '@treewarden/engine';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../../../test-support/cli-helpers.js';
import {
  fixturePath,
  isRunning,
  MAX_LIFETIME_ENV,
  makeTempDir,
  REPORT_ENV,
  readReports,
  removeTempDir,
  useProcessTracker,
} from '../../../test-support/index.js';

const MARKER_ENV = 'TREEWARDEN_CLI_TEST_MARKER';
const MIB = 1024 * 1024;
/** A tripping limit ends the run in seconds; this only bounds a run whose limit failed. */
const BOUNDING_TIMEOUT = '60';
const CLI_LIMIT_TEST_TIMEOUT_MS = 90_000;

describe('treewarden run limits', () => {
  const tracker = useProcessTracker();
  const dirs: string[] = [];
  beforeAll(assertBuilt);
  afterEach(() => {
    for (const dir of dirs.splice(0)) removeTempDir(dir);
  });

  function testEnv() {
    const dir = makeTempDir();
    dirs.push(dir);
    const marker = randomUUID();
    tracker.trackEnvMarker(MARKER_ENV, marker);
    const reportFile = join(dir, 'report.jsonl');
    return { dir, reportFile, env: { [MARKER_ENV]: marker, [REPORT_ENV]: reportFile, [MAX_LIFETIME_ENV]: '60000' } };
  }

  it.each([
    [['--max-memory', '0'], 'max-memory 0 is below MIN_MEMORY_LIMIT_BYTES (1048576)'],
    [['--max-memory', '12Q'], 'max-memory "12Q" is not a size'],
    [['--max-memory', '99999T'], 'is above MAX_MEMORY_LIMIT_BYTES'],
    [['--max-memory', '1G '], 'max-memory "1G " is not a size'],
    [['--max-memory', ''], 'max-memory "" is empty'],
    [['--max-procs', ' 8'], 'max-procs " 8" is not a whole number'],
    [['--max-cpu', '1e3'], 'max-cpu "1e3" is not a number of seconds'],
    [['--idle-timeout', '30\t'], 'idle-timeout "30\\t" is not a number of seconds'],
    [['--timeout', '0x10'], 'timeout "0x10" is not a number of seconds'],
    [['--max-procs=-3'], 'max-procs -3 is below MIN_PROCS_LIMIT (1)'],
    [['--max-procs', '2.5'], 'max-procs "2.5" is not a whole number'],
    [['--max-cpu', '0'], 'max-cpu 0 is below MIN_CPU_LIMIT_SECONDS (1)'],
    [['--max-cpu', 'lots'], 'max-cpu "lots" is not a number of seconds'],
    [['--idle-timeout=-1'], 'idle-timeout -1 is below MIN_IDLE_TIMEOUT_SECONDS (1)'],
    [['--cgroup', '--max-procs', '0'], 'max-procs 0 is below MIN_PROCS_LIMIT (1)'],
  ])('refuses %j with exit 2 before launching anything', async (flags, message) => {
    const { dir, env } = testEnv();
    const marker = join(dir, 'launched');
    const result = await runCli(['run', ...flags, '--', 'touch', marker], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(existsSync(marker)).toBe(false);
  });

  it(
    '--max-memory trips on a balloon in a setsid grandchild: exit 124, limit in --json, nothing survives',
    async () => {
      const { reportFile, env } = testEnv();
      const result = await runCli(
        [
          'run',
          '--json',
          '--timeout',
          BOUNDING_TIMEOUT,
          '--max-memory',
          '256M',
          '--',
          process.execPath,
          fixturePath('balloon.mjs'),
          '--setsid',
          '16',
          '50',
          '640',
        ],
        env,
      );
      expect(result.code).toBe(124);
      const outcome = JSON.parse(result.stdout) as Record<string, unknown> & {
        limit: { name: string; value: number; observed: number };
      };
      expect(outcome).toMatchObject({ classification: 'memory_limit', survivors: [], limitEnforcement: 'polling' });
      expect(outcome.limit.name).toBe('max-memory');
      expect(outcome.limit.value).toBe(256 * MIB);
      expect(outcome.limit.observed).toBeGreaterThan(256 * MIB);
      for (const reported of readReports(reportFile)) expect(isRunning(reported.pid)).toBe(false);
    },
    CLI_LIMIT_TEST_TIMEOUT_MS,
  );

  it(
    '--idle-timeout ends a silent hang without --json: exit 124 and a summary that says why',
    async () => {
      const { reportFile, env } = testEnv();
      const result = await runCli(
        [
          'run',
          '--timeout',
          BOUNDING_TIMEOUT,
          '--idle-timeout',
          '1',
          '--',
          process.execPath,
          fixturePath('spawn-children.mjs'),
          '--detached',
          '1',
          'run-forever.mjs',
        ],
        env,
      );
      expect(result.code).toBe(124);
      expect(result.stderr).toMatch(/treewarden: stalled .*no output for \d+\.\d s \(idle-timeout 1 s\)/);
      for (const reported of readReports(reportFile)) expect(isRunning(reported.pid)).toBe(false);
    },
    CLI_LIMIT_TEST_TIMEOUT_MS,
  );

  const cgroupProbe = probeCgroup();
  it.skipIf(!cgroupProbe.available)(
    '--cgroup --max-procs counts the run cgroup: cookie-less double-forked daemons trip it, exit 124, the cgroup is gone',
    async () => {
      const { reportFile, env } = testEnv();
      const result = await runCli(
        [
          'run',
          '--json',
          '--cgroup',
          '--timeout',
          BOUNDING_TIMEOUT,
          '--max-procs',
          '4',
          '--',
          process.execPath,
          // Cookie-less daemons one after another: only they pass 4 (root + ≥ 3 daemons + ≤ 1 middle).
          fixturePath('stealth-pile.mjs'),
          '6',
        ],
        env,
      );
      for (const reported of readReports(reportFile)) tracker.trackPid(reported.pid);
      expect(result.code).toBe(124);
      const outcome = JSON.parse(result.stdout) as Record<string, unknown> & { cgroup: string; runId: string };
      expect(outcome).toMatchObject({
        classification: 'process_limit',
        survivors: [],
        limitEnforcement: 'cgroup',
        limitMethods: { 'max-procs': 'cgroup.procs' },
      });
      const home = cgroupProbe.available ? join(cgroupProbe.path, CGROUP_HOME_NAME) : '';
      expect(outcome.cgroup).toBe(join(home, outcome.runId));
      expect(existsSync(outcome.cgroup)).toBe(false);
      // The third daemon started only after the second reported: at least two did.
      expect(readReports(reportFile).filter((r) => r.role === 'stealth').length).toBeGreaterThanOrEqual(2);
      for (const reported of readReports(reportFile)) expect(isRunning(reported.pid)).toBe(false);
    },
    CLI_LIMIT_TEST_TIMEOUT_MS,
  );
});
