/**
 * A run whose supervisors died leaves no end on record; once nothing of it is alive, whoever looks
 * (the app, `treewarden history`, `treewarden orphans`) records its end — exactly once, even when
 * several look at the same moment — and never while a process of it still lives.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appendLedgerRecord } from '../../../packages/engine/src/ledger/append.js';
import { readLedger } from '../../../packages/engine/src/ledger/read.js';
import { RUN_ID_ENV } from '../../../packages/engine/src/run/types.js';
import { createRunDir, ensureStateDir, type StatePaths } from '../../../packages/engine/src/state/state-dir.js';
import { readProcEntry } from '../../../packages/engine/src/table/linux-proc.js';
import {
  makeTempDir,
  readReportedPids,
  spawnFixture,
  useProcessTracker,
} from '../../../packages/engine/test/helpers/index.js';
import { assertBuilt, runCli, startCli } from './cli-helpers.js';

const CLI_TEST_TIMEOUT_MS = 90_000;
/** CLIs looking at the same state dir at the same moment. */
const CONCURRENT_LOOKERS = 4;

/** The identity of a process that has exited: the recorder of a run nobody supervises any more. */
function deadRecorder(): { role: 'cli'; pid: number; startTime: string } {
  const probe = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
  const pid = Number(probe.stdout.trim());
  return { role: 'cli', pid, startTime: 'exited-before-this-test' };
}

function plantUnendedRun(paths: StatePaths, runId: string): void {
  const runDir = createRunDir(paths, runId);
  appendLedgerRecord(
    paths.ledgerFile,
    {
      kind: 'run_start',
      runId,
      command: 'worker',
      args: ['--long'],
      cwd: runDir,
      runDir,
      pid: null,
      startTime: null,
      timeoutSeconds: 120,
    },
    deadRecorder(),
  );
}

function endsOf(paths: StatePaths, runId: string) {
  return readLedger(paths.ledgerFile).records.filter((record) => record.kind === 'run_end' && record.runId === runId);
}

describe('ends of runs whose supervisors died', () => {
  const tracker = useProcessTracker();
  const homes: string[] = [];
  beforeAll(assertBuilt);
  afterEach(() => {
    for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
  });

  it(
    'is recorded once by the CLIs that look (history, orphans), and not while a process of the run lives',
    async () => {
      const home = makeTempDir('tw-settle-');
      homes.push(home);
      const paths = ensureStateDir(home);
      const gone = `run-gone-${process.pid}-${Date.now()}`;
      const alive = `run-alive-${process.pid}-${Date.now()}`;
      plantUnendedRun(paths, gone);
      plantUnendedRun(paths, alive);
      tracker.trackEnvMarker(RUN_ID_ENV, alive);
      const survivor = spawnFixture(tracker, 'run-forever.mjs', ['leaked'], {
        detached: true,
        env: { [RUN_ID_ENV]: alive },
      });
      await readReportedPids(tracker, survivor.reportFile, 1);

      const env = { TREEWARDEN_HOME: home };
      const lookers = Array.from({ length: CONCURRENT_LOOKERS }, (_, index) =>
        startCli(index % 2 === 0 ? ['history', '--json'] : ['orphans', '--json'], env),
      );
      const results = await Promise.all(lookers.map((looker) => looker.result));
      expect(results.map((result) => [result.code, result.stderr])).toEqual(results.map(() => [0, '']));

      const ends = endsOf(paths, gone);
      expect(ends).toHaveLength(1);
      expect(ends[0]).toMatchObject({
        classification: 'cancelled',
        endedWithoutSupervisor: expect.stringMatching(/nobody alive supervises it any more; its last process exited/),
      });
      // Its cookie is still on a live process: not over on record, and shown as a leak instead.
      expect(endsOf(paths, alive)).toEqual([]);
      expect(readProcEntry(survivor.pid)).not.toBeNull();

      const history = await runCli(['history'], env);
      expect(history.stdout).toMatch(new RegExp(`${gone}\\s+cancelled.*its last process exited`));
      expect(history.stdout).toMatch(new RegExp(`${alive}\\s+no end recorded`));
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
