import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDir, useProcessTracker } from '../helpers/index.js';
import { nodeScript, startTracked } from './run-helpers.js';

describe('run outcomes by how the worker ended', () => {
  const tracker = useProcessTracker();
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) removeTempDir(dir);
  });

  it('ok: exit 0, with identity, cookies and tails', async () => {
    const run = startTracked(tracker, {
      ...nodeScript('console.log(process.env.TREEWARDEN_RUN_ID + " " + process.env.TREEWARDEN_LEASE_ID)'),
      runId: 'run-ok-test',
      leaseId: 'lease-ok-test',
    });
    expect(run.identity?.startTime).toMatch(/^\d+$/);
    const outcome = await run.outcome;
    expect(outcome).toMatchObject({
      classification: 'ok',
      exitCode: 0,
      signal: null,
      pid: run.identity?.pid,
      startTime: run.identity?.startTime,
      runId: 'run-ok-test',
      killAttempts: 0,
      survivors: [],
      leftovers: [],
    });
    expect(outcome.stdoutTail).toBe('run-ok-test lease-ok-test\n');
    expect(run.phase).toBe('ended');
  });

  it('reads the identity even of a worker that exits at once (its stat stays until reaped)', async () => {
    const runs = Array.from({ length: 10 }, () => startTracked(tracker, { command: 'true' }));
    const outcomes = await Promise.all(runs.map((run) => run.outcome));
    for (const outcome of outcomes) {
      expect(outcome.classification).toBe('ok');
      expect(outcome.startTime).toMatch(/^\d+$/);
    }
  });

  it.each([
    ['error', 'process.stderr.write("TypeError: boom\\n"); process.exit(3)', 3],
    ['usage_limit', 'process.stderr.write("Claude AI usage limit reached|1767225600\\n"); process.exit(1)', 1],
    ['auth_failure', 'process.stderr.write("Invalid API key · Please run /login\\n"); process.exit(1)', 1],
    ['cancelled', 'process.stderr.write("Request cancelled by user\\n"); process.exit(1)', 1],
  ])('%s: classified from stderr of a non-zero exit', async (classification, script, exitCode) => {
    const outcome = await startTracked(tracker, nodeScript(script)).outcome;
    expect(outcome.classification).toBe(classification);
    expect(outcome.exitCode).toBe(exitCode);
  });

  it('error with the signal name when the worker dies by a signal', async () => {
    const outcome = await startTracked(tracker, nodeScript('process.kill(process.pid, "SIGKILL")')).outcome;
    expect(outcome).toMatchObject({ classification: 'error', exitCode: null, signal: 'SIGKILL' });
  });

  it('inherit: no tails, classified by the exit alone', async () => {
    const outcome = await startTracked(tracker, { command: 'sh', args: ['-c', 'exit 5'], output: 'inherit' }).outcome;
    expect(outcome).toMatchObject({ classification: 'error', exitCode: 5, stdoutTail: '', stderrTail: '' });
  });

  it('missing_binary: a structured outcome, not a throw', async () => {
    const run = startTracked(tracker, { command: 'treewarden-no-such-binary-xyz' });
    expect(run.identity).toBeNull();
    const outcome = await run.outcome;
    expect(outcome).toMatchObject({ classification: 'missing_binary', pid: null, exitCode: null });
    expect(outcome.error).toMatch(/treewarden-no-such-binary-xyz was not found \(ENOENT\)/);
  });

  it('launch_failure: a file that is not executable (EACCES)', async () => {
    const dir = makeTempDir();
    dirs.push(dir);
    const script = join(dir, 'not-executable.sh');
    writeFileSync(script, '#!/bin/sh\nexit 0\n');
    chmodSync(script, 0o644);
    const outcome = await startTracked(tracker, { command: script }).outcome;
    expect(outcome.classification).toBe('launch_failure');
    expect(outcome.error).toMatch(/EACCES.*chmod \+x/);
  });

  it('launch_failure, not missing_binary, when the cwd does not exist', async () => {
    const outcome = await startTracked(tracker, { command: 'true', cwd: '/nonexistent/treewarden-cwd' }).outcome;
    expect(outcome.classification).toBe('launch_failure');
    expect(outcome.error).toMatch(/cwd \/nonexistent\/treewarden-cwd is not a directory/);
  });

  it('runs in its own session and process group', async () => {
    const run = startTracked(tracker, nodeScript('setTimeout(() => {}, 200)'));
    const { readProcEntry } = await import('../../src/table/linux-proc.js');
    const entry = readProcEntry(run.identity?.pid ?? -1);
    expect(entry?.sid).toBe(run.identity?.pid);
    expect(entry?.pgid).toBe(run.identity?.pid);
    expect((await run.outcome).classification).toBe('ok');
  });
});
