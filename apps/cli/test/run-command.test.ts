import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, startCli } from '../../../test-support/cli-helpers.js';
import {
  fixturePath,
  isRunning,
  MAX_LIFETIME_ENV,
  makeTempDir,
  REPORT_ENV,
  readReportedPids,
  removeTempDir,
  useProcessTracker,
} from '../../../test-support/index.js';

const JSON_FIELDS = [
  'classification',
  'exitCode',
  'signal',
  'pid',
  'startTime',
  'durationMs',
  'killAttempts',
  'survivors',
  'stdoutTail',
  'stderrTail',
  'runId',
  'leftovers',
];
const MARKER_ENV = 'TREEWARDEN_CLI_TEST_MARKER';

describe('treewarden run', () => {
  const tracker = useProcessTracker();
  const dirs: string[] = [];
  beforeAll(assertBuilt);
  afterEach(() => {
    for (const dir of dirs.splice(0)) removeTempDir(dir);
  });

  /** Env for a CLI run: a marker every descendant inherits (ended at cleanup) and a fixture report file. */
  function testEnv() {
    const dir = makeTempDir();
    dirs.push(dir);
    const marker = randomUUID();
    tracker.trackEnvMarker(MARKER_ENV, marker);
    const reportFile = join(dir, 'report.jsonl');
    return { dir, reportFile, env: { [MARKER_ENV]: marker, [REPORT_ENV]: reportFile, [MAX_LIFETIME_ENV]: '60000' } };
  }

  it('--json prints exactly one object with every outcome field and exits with the worker status', async () => {
    const { env } = testEnv();
    const result = await runCli(['run', '--json', '--', 'sh', '-c', 'echo out; exit 3'], env);
    expect(result.code).toBe(3);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const outcome = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    for (const field of JSON_FIELDS) expect(outcome).toHaveProperty(field);
    expect(outcome).toMatchObject({ classification: 'error', exitCode: 3, signal: null, stdoutTail: 'out\n' });
    expect(outcome.startTime).toMatch(/^\d+$/);
  });

  it('exits 128+n when the worker dies by signal n', async () => {
    const { env } = testEnv();
    const result = await runCli(['run', '--json', '--', 'sh', '-c', 'kill -KILL $$'], env);
    expect(result.code).toBe(137);
    expect(JSON.parse(result.stdout)).toMatchObject({ classification: 'error', signal: 'SIGKILL' });
  });

  it('passes output through without --json and summarizes on stderr', async () => {
    const { env } = testEnv();
    const result = await runCli(['run', '--', 'sh', '-c', 'echo hello; echo "Invalid API key" >&2; exit 1'], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('hello\n');
    expect(result.stderr).toContain('Invalid API key\n');
    expect(result.stderr).toMatch(/treewarden: auth_failure \(exit 1\)/);
  });

  it('keeps draining the worker when its own stdout is closed (| head)', async () => {
    const { env } = testEnv();
    const writer =
      'let i = 0; const w = () => { while (i < 2000) { i++; if (!process.stdout.write("x".repeat(10000) + "\\n")) return process.stdout.once("drain", w); } }; w();';
    const cli = startCli(['run', '--timeout', '60', '--', process.execPath, '-e', writer], env);
    cli.child.stdout?.once('data', () => cli.child.stdout?.destroy());
    const result = await cli.result;
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/treewarden: ok \(exit 0\)/);
  });

  it('exits 124 on timeout and ends the tree', async () => {
    const { env, reportFile } = testEnv();
    const cli = startCli(
      [
        'run',
        '--json',
        '--timeout',
        // Long enough for the fixture to report its tree under load before the timeout ends it.
        '4',
        '--grace',
        '0.5',
        '--',
        process.execPath,
        fixturePath('spawn-children.mjs'),
        '1',
        'run-forever.mjs',
      ],
      env,
    );
    const [parent] = await readReportedPids(tracker, reportFile, 1, { role: 'parent' });
    const result = await cli.result;
    expect(result.code).toBe(124);
    const outcome = JSON.parse(result.stdout) as { classification: string; killAttempts: number };
    expect(outcome.classification).toBe('timeout');
    expect(outcome.killAttempts).toBeGreaterThanOrEqual(1);
    for (const pid of [parent?.pid ?? -1, ...((parent?.children as number[]) ?? [])])
      expect(isRunning(pid)).toBe(false);
  });

  it.each([
    ['0', 'timeout 0 is below MIN_TIMEOUT_SECONDS (1)'],
    ['5401', 'timeout 5401 is above MAX_TIMEOUT_SECONDS (5400)'],
    ['abc', 'timeout "abc" is not a number of seconds'],
  ])('refuses --timeout %s with exit 2 before launching anything', async (timeout, message) => {
    const { dir, env } = testEnv();
    const marker = join(dir, 'launched');
    const result = await runCli(['run', '--timeout', timeout, '--', 'touch', marker], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(existsSync(marker)).toBe(false);
  });

  it('exits 2 for a missing command or an unknown flag', async () => {
    expect((await runCli(['run', '--json'])).code).toBe(2);
    const unknown = await runCli(['run', '--bogus', '--', 'true']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--bogus/);
  });

  it('exits 127 for a missing binary and 126 for a file that is not executable', async () => {
    const { dir, env } = testEnv();
    const missing = await runCli(['run', '--json', '--', 'treewarden-no-such-binary-xyz'], env);
    expect(missing.code).toBe(127);
    expect(JSON.parse(missing.stdout)).toMatchObject({ classification: 'missing_binary', pid: null });
    const script = join(dir, 'plain.sh');
    writeFileSync(script, '#!/bin/sh\n');
    chmodSync(script, 0o644);
    const denied = await runCli(['run', '--json', '--', script], env);
    expect(denied.code).toBe(126);
    expect(JSON.parse(denied.stdout)).toMatchObject({ classification: 'launch_failure' });
  });

  it('ends descendants the root left behind and lists them as leftovers', async () => {
    const { env, reportFile } = testEnv();
    const result = await runCli(
      ['run', '--json', '--', process.execPath, fixturePath('setsid-escape.mjs'), '--exit'],
      env,
    );
    const [escaper] = await readReportedPids(tracker, reportFile, 1, { role: 'escaper' });
    const escaped = escaper?.child as number;
    expect(result.code).toBe(0);
    const outcome = JSON.parse(result.stdout) as { classification: string; leftovers: { pid: number }[] };
    expect(outcome.classification).toBe('ok');
    expect(outcome.leftovers.map((l) => l.pid)).toContain(escaped);
    expect(isRunning(escaped)).toBe(false);
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s to the CLI cancels the run with the tree kill and exits %i', async (signal, code) => {
    const { env, reportFile } = testEnv();
    const cli = startCli(
      [
        'run',
        '--json',
        '--grace',
        '0.5',
        '--',
        process.execPath,
        fixturePath('spawn-children.mjs'),
        '2',
        'run-forever.mjs',
      ],
      env,
    );
    tracker.trackChild(cli.child);
    const [parent] = await readReportedPids(tracker, reportFile, 1, { role: 'parent' });
    cli.child.kill(signal);
    const result = await cli.result;
    expect(result.code).toBe(code);
    expect(JSON.parse(result.stdout)).toMatchObject({ classification: 'cancelled' });
    for (const pid of [parent?.pid ?? -1, ...((parent?.children as number[]) ?? [])])
      expect(isRunning(pid)).toBe(false);
  });
});
