/**
 * `treewarden run --lease`, `history` and `orphans`, through the built CLI. SIGKILL of the
 * `treewarden` process, alone or with its whole group, leaves nothing of its run alive; the run
 * then shows up in `history`; a tree leaked on purpose is found and cleaned by `orphans`.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { ensureStateDir, listLeases, RUN_ID_ENV, type StatePaths } from '@treewarden/engine';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI_MAIN, runCli } from '../../../test-support/cli-helpers.js';
import {
  fixturePath,
  isRunning,
  MAX_LIFETIME_ENV,
  makeTempDir,
  pollUntil,
  REPORT_ENV,
  readReportedPids,
  recordPastRun,
  spawnFixture,
  useProcessTracker,
} from '../../../test-support/index.js';
import {
  AGENT_TREE_REPORTS,
  assertGuardianBuilt,
  NO_SURVIVOR_WAIT_MS,
  scanRunSurvivors,
} from '../../../test-support/lease-helpers.js';

/** Node start-ups of CLI, guardian and a 6-process tree, plus a graceful kill, on a loaded 2-core box. */
const CLI_TEST_TIMEOUT_MS = 90_000;
const homes: string[] = [];
interface Listed {
  readonly groups: readonly { runId: string; kind: string; processes: { pid: number; reasons: string[] }[] }[];
}
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function stateHome(): StatePaths {
  const home = makeTempDir('tw-cli-home-');
  homes.push(home);
  return ensureStateDir(home);
}

describe('treewarden run --lease / history / orphans', () => {
  const tracker = useProcessTracker();
  beforeAll(() => {
    assertBuilt();
    assertGuardianBuilt();
  });

  for (const target of ['the treewarden process alone', 'its whole process group'] as const) {
    it(
      `SIGKILL of ${target} leaves no process of the run alive`,
      async () => {
        const paths = stateHome();
        const reportFile = `${paths.root}/report.jsonl`;
        const cli = spawn(
          process.execPath,
          [
            CLI_MAIN,
            'run',
            '--lease',
            'cli-kill',
            '--grace',
            '1',
            '--',
            process.execPath,
            fixturePath('lease-agent-tree.mjs'),
          ],
          {
            detached: true,
            stdio: 'ignore',
            env: { ...process.env, TREEWARDEN_HOME: paths.root, [REPORT_ENV]: reportFile, [MAX_LIFETIME_ENV]: '60000' },
          },
        );
        tracker.trackChild(cli, { detached: true });
        await readReportedPids(tracker, reportFile, AGENT_TREE_REPORTS, { timeoutMs: 40_000 });
        const [status] = listLeases(paths);
        const run = status?.lease.runs[0];
        expect(status?.state).toBe('held');
        expect(run).toBeDefined();
        tracker.trackPid(status?.lease.guardian.pid as number);
        tracker.trackEnvMarker(RUN_ID_ENV, run?.runId as string);
        expect(scanRunSurvivors(run?.runId as string, run?.runDir as string).length).toBeGreaterThanOrEqual(
          AGENT_TREE_REPORTS,
        );

        process.kill(target === 'its whole process group' ? -(cli.pid as number) : (cli.pid as number), 'SIGKILL');
        let survivors: string[] = [];
        await pollUntil(
          () => {
            survivors = scanRunSurvivors(run?.runId as string, run?.runDir as string);
            return survivors.length === 0;
          },
          { deadlineMs: NO_SURVIVOR_WAIT_MS, description: 'the run to leave no survivor' },
        ).catch(() => undefined);
        expect(survivors).toEqual([]);
        await pollUntil(() => listLeases(paths)[0]?.state === 'ended', {
          deadlineMs: NO_SURVIVOR_WAIT_MS,
          description: 'the lease to end',
        });

        const history = await runCli(['history', '--json'], { TREEWARDEN_HOME: paths.root });
        expect(history.code).toBe(0);
        const { runs } = JSON.parse(history.stdout) as { runs: { runId: string; classification: string }[] };
        expect(runs).toEqual([expect.objectContaining({ runId: run?.runId, classification: 'cancelled' })]);
      },
      CLI_TEST_TIMEOUT_MS,
    );
  }

  it(
    'orphans finds a tree leaked by an ended run and --clean ends it',
    async () => {
      const paths = stateHome();
      const runId = `run-cli-leak-${process.pid}-${Date.now()}`;
      const runDir = recordPastRun(paths, runId, { command: 'x' });
      tracker.trackEnvMarker(RUN_ID_ENV, runId);
      const leaked = spawnFixture(tracker, 'setsid-escape.mjs', [], {
        detached: true,
        cwd: runDir,
        env: { [RUN_ID_ENV]: runId },
      });
      const [escaper] = await readReportedPids(tracker, leaked.reportFile, 1, { role: 'escaper' });
      await readReportedPids(tracker, leaked.reportFile, 1, { role: 'escaped' });
      const env = { TREEWARDEN_HOME: paths.root };

      const listed = await runCli(['orphans', '--json'], env);
      expect(listed.code).toBe(0);
      expect(listed.stderr).toBe('');
      const { groups } = JSON.parse(listed.stdout) as Listed;
      // Other tools' leftovers on this shared machine may show up as unregistered; ours is recorded.
      expect(groups.filter((group) => group.kind === 'over').map((group) => group.runId)).toEqual([runId]);
      const ours = groups.find((group) => group.runId === runId);
      expect(ours?.processes.map((p) => p.pid).sort()).toEqual([leaked.pid, escaper?.child as number].sort());
      expect(ours?.processes.every((p) => p.reasons.length > 0)).toBe(true);

      const cleaned = await runCli(['orphans', '--clean', '--grace', '0.3', '--json'], env);
      expect(cleaned.code).toBe(0);
      expect(JSON.parse(cleaned.stdout)).toMatchObject({ survivors: [] });
      expect(isRunning(leaked.pid)).toBe(false);
      expect(isRunning(escaper?.child as number)).toBe(false);
      const after = await runCli(['orphans', '--json'], env);
      expect(after.stderr).toBe('');
      expect((JSON.parse(after.stdout) as Listed).groups.filter((group) => group.kind === 'over')).toEqual([]);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
