/**
 * `treewarden scenario` through the built CLI (apps/cli/dist): the JSON contract, the exit
 * statuses, and that a SIGINT mid-scenario leaves nothing behind.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pollUntil } from '../../../test-support/index.js';
import { CLI, CLI_MISSING, collect, findLeftovers, testTimeoutFor } from './support.js';

function startCli(args: readonly string[], env: NodeJS.ProcessEnv = process.env): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
}

/** How long a lease's guardian may take to end the runs of a SIGKILLed holder (grace, kill, sweep). */
const GUARDIAN_CLEANUP_MS = 30_000;

describe.skipIf(CLI_MISSING !== '')(`treewarden scenario${CLI_MISSING}`, () => {
  it('run NAME --json prints expected and actual and exits 0 when they match', {
    timeout: testTimeoutFor('agent-auth-failure'),
  }, async () => {
    const { code, stdout, stderr } = await collect(startCli(['scenario', 'run', 'agent-auth-failure', '--json']));
    expect(code, stderr).toBe(0);
    const result = JSON.parse(stdout) as {
      expected: unknown;
      actual: unknown;
      passed: boolean;
      steps: unknown[];
      runId: string;
      dir: string;
    };
    expect(result.expected).toEqual({ classification: 'auth_failure', nothingSurvives: true });
    expect(result.actual).toEqual({ classification: 'auth_failure', nothingSurvives: true });
    expect(result.passed).toBe(true);
    expect(result.steps.length).toBeGreaterThan(2);
    expect(findLeftovers(result.runId, result.dir)).toEqual([]);
  });

  it('list --json lists every scenario; an unknown name is a usage error (exit 2)', async () => {
    const list = await collect(startCli(['scenario', 'list', '--json']));
    expect(list.code).toBe(0);
    const names = (JSON.parse(list.stdout) as { scenarios: { name: string }[] }).scenarios.map((s) => s.name);
    expect(names).toContain('setsid-escape');
    const unknown = await collect(startCli(['scenario', 'run', 'no-such-scenario']));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/choose one of/);
  });

  it('SIGINT mid-scenario ends everything the scenario started, then exits 130', {
    timeout: testTimeoutFor('setsid-escape'),
  }, async () => {
    const child = startCli(['scenario', 'run', 'setsid-escape']);
    const done = collect(child);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    // The escaped child is announced by the census once it runs in its own session.
    await pollUntil(() => /appeared: \d+ .*\(own session/.test(output), {
      deadlineMs: 20_000,
      description: 'the setsid escape to happen',
    });
    const dir = /\/tmp\/treewarden-scenario-setsid-escape-\w+/.exec(output)?.[0];
    child.kill('SIGINT');
    const { code, stdout } = await done;
    expect(code, stdout).toBe(130);
    expect(stdout).toMatch(/Interrupted/);
    const runId = /TREEWARDEN_RUN_ID=(\S+)/.exec(stdout)?.[1];
    expect(dir, stdout).toBeDefined();
    expect(runId, stdout).toBeDefined();
    expect(findLeftovers(runId as string, dir as string)).toEqual([]);
  });

  it('with --lease, SIGKILL of the CLI mid-scenario still leaves nothing: the guardian ends the run', {
    timeout: testTimeoutFor('setsid-escape') + GUARDIAN_CLEANUP_MS,
  }, async () => {
    const home = mkdtempSync(join(tmpdir(), 'tw-scenario-cli-home-'));
    // The SIGKILLed CLI cannot remove its scenario dir; the test does, once the guardian is done.
    let dir = '';
    try {
      const child = startCli(['scenario', 'run', 'setsid-escape', '--lease', 'cli-test'], {
        ...process.env,
        TREEWARDEN_HOME: home,
      });
      const done = collect(child);
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
      });
      await pollUntil(() => /appeared: \d+ .*\(own session/.test(output), {
        deadlineMs: 30_000,
        // What the CLI had said by then: where it stopped (the lease, the guardian, the scenario).
        description: () => `the setsid escape to happen under the lease; the CLI said:\n${output}`,
      });
      dir = /\/tmp\/treewarden-scenario-setsid-escape-\w+/.exec(output)?.[0] as string;
      const runId = /TREEWARDEN_RUN_ID=(\S+)/.exec(output)?.[1] as string;
      expect(findLeftovers(runId, dir).length, output).toBeGreaterThanOrEqual(2);
      child.kill('SIGKILL');
      await done;
      await pollUntil(() => findLeftovers(runId, dir).length === 0, {
        deadlineMs: GUARDIAN_CLEANUP_MS,
        description: "the guardian to end the SIGKILLed CLI's scenario run",
      });
    } finally {
      rmSync(home, { recursive: true, force: true });
      if (dir.length > 0) rmSync(dir, { recursive: true, force: true });
    }
  });
});
