/**
 * What a user of `treewarden run` sees when supervision is threatened, through the built CLI:
 * the guardian SIGKILLed alone (the CLI takes over and still ends the tree at the deadline),
 * guardian and CLI SIGKILLed together (`orphans` reports the tree and `--clean` ends it), and
 * `--keep-descendants` (the kept descendant really outlives the CLI, its lease and its guardian,
 * and is not reported as leaked).
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import type { GuardianLostRecord, KillRecord, RunEndRecord } from '@treewarden/engine';
import { ensureStateDir, listLeases, RUN_ID_ENV, readLedger, type StatePaths } from '@treewarden/engine';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI_MAIN, collectOutput, runCli } from '../../../test-support/cli-helpers.js';
import {
  fixturePath,
  isRunning,
  MAX_LIFETIME_ENV,
  makeTempDir,
  type ProcessTracker,
  pollUntil,
  REPORT_ENV,
  readReportedPids,
  useProcessTracker,
} from '../../../test-support/index.js';
import {
  AGENT_TREE_REPORTS,
  assertGuardianBuilt,
  NO_SURVIVOR_WAIT_MS,
  scanRunSurvivors,
} from '../../../test-support/lease-helpers.js';

/** The run's timeout in the guardian-loss test: far beyond the tree's start-up on a loaded box. */
const RUN_TIMEOUT_SECONDS = 30;
/** Start-up of CLI, guardian and a 6-process tree, the timeout, a graceful kill, on a loaded 2-core box. */
const TEST_TIMEOUT_MS = 150_000;
/** Bound on one CLI run in these tests: the timeout plus start-up and the kill, with room for load. */
const CLI_EXIT_WAIT_MS = 90_000;
const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

interface Listed {
  readonly groups: readonly { runId: string; kind: string; processes: { pid: number; reasons: string[] }[] }[];
}

function stateHome(): StatePaths {
  const home = makeTempDir('tw-cli-guardian-');
  homes.push(home);
  return ensureStateDir(home);
}

/** Starts `treewarden run ARGS` detached (its own group), reporting fixtures to `reportFile`. */
function startRun(tracker: ProcessTracker, paths: StatePaths, args: readonly string[]) {
  const reportFile = `${paths.root}/report.jsonl`;
  const cli = spawn(process.execPath, [CLI_MAIN, 'run', ...args], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TREEWARDEN_HOME: paths.root, [REPORT_ENV]: reportFile, [MAX_LIFETIME_ENV]: '90000' },
  });
  tracker.trackChild(cli, { detached: true });
  return {
    cli,
    reportFile,
    result: collectOutput(cli, { description: 'treewarden run', timeoutMs: CLI_EXIT_WAIT_MS }),
  };
}

/** The lease the CLI opened and its one run, once the run's root is recorded. */
async function heldRun(tracker: ProcessTracker, paths: StatePaths) {
  const status = await pollUntil(
    () => {
      const [first] = listLeases(paths);
      return first?.lease.runs[0]?.pid != null ? first : null;
    },
    { description: "the CLI's lease to record its run's root" },
  );
  const run = status.lease.runs[0] as NonNullable<(typeof status.lease.runs)[0]>;
  tracker.trackPid(status.lease.guardian.pid);
  tracker.trackEnvMarker(RUN_ID_ENV, run.runId);
  return { lease: status.lease, run };
}

describe('treewarden run when supervision is threatened', () => {
  const tracker = useProcessTracker();
  beforeAll(() => {
    assertBuilt();
    assertGuardianBuilt();
  });

  it(
    'guardian SIGKILLed alone: the CLI supervises the run itself and ends the tree at the deadline',
    async () => {
      const paths = stateHome();
      const started = startRun(tracker, paths, [
        '--json',
        '--timeout',
        String(RUN_TIMEOUT_SECONDS),
        '--grace',
        '1',
        '--',
        process.execPath,
        fixturePath('lease-agent-tree.mjs'),
      ]);
      await readReportedPids(tracker, started.reportFile, AGENT_TREE_REPORTS, { timeoutMs: 40_000 });
      const { lease, run } = await heldRun(tracker, paths);

      process.kill(lease.guardian.pid, 'SIGKILL');
      await pollUntil(() => lostRecord(paths) !== undefined, {
        deadlineMs: NO_SURVIVOR_WAIT_MS,
        description: 'the CLI to record the loss',
      });
      // Taken over, not ended: the deadline has not come yet.
      expect(scanRunSurvivors(run.runId, run.runDir).length).toBeGreaterThanOrEqual(AGENT_TREE_REPORTS);

      const result = await started.result;
      expect(result.stderr).toContain(
        `treewarden: guardian ${lease.guardian.pid} died; this process now supervises the run itself\n`,
      );
      expect(result.code).toBe(124);
      const outcome = JSON.parse(result.stdout) as Record<string, unknown>;
      expect(outcome).toMatchObject({
        classification: 'timeout',
        survivors: [],
        runId: run.runId,
        guardianLost: { pid: lease.guardian.pid, signal: 'SIGKILL' },
      });
      expect(outcome.durationMs).toBeGreaterThanOrEqual(RUN_TIMEOUT_SECONDS * 1000);
      expect(scanRunSurvivors(run.runId, run.runDir)).toEqual([]);

      const { records } = readLedger(paths.ledgerFile);
      const holder = { role: 'holder', pid: started.cli.pid };
      expect(lostRecord(paths)).toMatchObject({ guardian: lease.guardian, runsTakenOver: [run.runId], by: holder });
      expect(records.find((r): r is RunEndRecord => r.kind === 'run_end')).toMatchObject({
        runId: run.runId,
        classification: 'timeout',
        by: holder,
      });
      expect(records.find((r): r is KillRecord => r.kind === 'kill')).toMatchObject({ survivors: [], by: holder });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'guardian and CLI SIGKILLed together: orphans reports the tree and --clean ends it',
    async () => {
      const paths = stateHome();
      const started = startRun(tracker, paths, [
        '--timeout',
        '60',
        '--',
        process.execPath,
        fixturePath('lease-agent-tree.mjs'),
      ]);
      const reported = await readReportedPids(tracker, started.reportFile, AGENT_TREE_REPORTS, { timeoutMs: 40_000 });
      const { lease, run } = await heldRun(tracker, paths);

      process.kill(lease.guardian.pid, 'SIGKILL');
      process.kill(started.cli.pid as number, 'SIGKILL');
      await started.result;
      await pollUntil(() => !isRunning(lease.guardian.pid, lease.guardian.startTime), {
        description: 'the guardian to be gone',
      });
      const env = { TREEWARDEN_HOME: paths.root };
      const listed = await runCli(['orphans', '--json'], env);
      expect(listed.code).toBe(0);
      const group = (JSON.parse(listed.stdout) as Listed).groups.find((g) => g.runId === run.runId);
      expect(group?.kind).toBe('over');
      const listedPids = new Set(group?.processes.map((p) => p.pid));
      for (const process of reported) expect(listedPids.has(process.pid)).toBe(true);

      const cleaned = await runCli(['orphans', '--clean', '--grace', '0.3', '--json'], env);
      expect(cleaned.code).toBe(0);
      expect(JSON.parse(cleaned.stdout)).toMatchObject({ survivors: [] });
      expect(scanRunSurvivors(run.runId, run.runDir)).toEqual([]);
      for (const process of reported) expect(isRunning(process.pid)).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    '--keep-descendants keeps them: alive after the CLI, its lease and its guardian are gone, never a leak',
    async () => {
      const paths = stateHome();
      const started = startRun(tracker, paths, [
        '--keep-descendants',
        '--timeout',
        '30',
        '--',
        process.execPath,
        fixturePath('setsid-escape.mjs'),
        '--exit',
      ]);
      const [escaper] = await readReportedPids(tracker, started.reportFile, 1, { role: 'escaper', timeoutMs: 40_000 });
      await readReportedPids(tracker, started.reportFile, 1, { role: 'escaped', timeoutMs: 40_000 });
      const kept = escaper?.child as number;
      const result = await started.result;
      expect(result.code).toBe(0);
      expect(result.stderr).toContain('kept 1 descendant(s)');

      const [status] = listLeases(paths);
      expect(status?.state).toBe('released');
      const guardian = status?.lease.guardian as { pid: number; startTime: string };
      await pollUntil(() => !isRunning(guardian.pid, guardian.startTime), {
        deadlineMs: NO_SURVIVOR_WAIT_MS,
        description: 'the guardian to exit',
      });
      expect(isRunning(kept)).toBe(true);

      const runEnd = readLedger(paths.ledgerFile).records.find((r): r is RunEndRecord => r.kind === 'run_end');
      expect(runEnd?.kept?.map((identity) => identity.pid)).toEqual([kept]);
      const listed = await runCli(['orphans', '--json', '--all'], { TREEWARDEN_HOME: paths.root });
      expect(listed.code).toBe(0);
      const listedPids = (JSON.parse(listed.stdout) as Listed).groups.flatMap((g) => g.processes.map((p) => p.pid));
      expect(listedPids).not.toContain(kept);

      // The user ends it by the identity the ledger recorded.
      const recorded = runEnd?.kept?.[0] as { pid: number; startTime: string };
      expect(isRunning(recorded.pid, recorded.startTime)).toBe(true);
      process.kill(recorded.pid, 'SIGKILL');
      await pollUntil(() => !isRunning(recorded.pid, recorded.startTime), { description: 'the kept process to end' });
    },
    TEST_TIMEOUT_MS,
  );
});

function lostRecord(paths: StatePaths): GuardianLostRecord | undefined {
  return readLedger(paths.ledgerFile).records.find((r): r is GuardianLostRecord => r.kind === 'guardian_lost');
}
