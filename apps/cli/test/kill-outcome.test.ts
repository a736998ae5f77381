/**
 * A person's kill is its own outcome, over real processes: `treewarden kill` of a `treewarden run`'s
 * root is recorded in the ledger (reason cli_kill), and `history` tells that run as `cancelled`,
 * killed by `cli`, never as an `error` by signal. A run that died by a signal nobody recorded
 * sending stays `error`; a timeout says it was the timeout.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, startCli } from '../../../test-support/cli-helpers.js';
import {
  fixturePath,
  MAX_LIFETIME_ENV,
  makeTempDir,
  REPORT_ENV,
  readReportedPids,
  removeTempDir,
  useProcessTracker,
} from '../../../test-support/index.js';

const MARKER_ENV = 'TREEWARDEN_CLI_TEST_MARKER';

interface HistoryRun {
  readonly runId: string;
  readonly pid: number | null;
  readonly classification: string | null;
  readonly signal: string | null;
  readonly killedBy: string | null;
}

describe('a kill is recorded as who killed', () => {
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
    return { reportFile, env: { [MARKER_ENV]: marker, [REPORT_ENV]: reportFile, [MAX_LIFETIME_ENV]: '60000' } };
  }

  async function historyOf(pid: number): Promise<HistoryRun | undefined> {
    const history = await runCli(['history', '--json']);
    expect(history.code).toBe(0);
    return (JSON.parse(history.stdout) as { runs: HistoryRun[] }).runs.find((run) => run.pid === pid);
  }

  function startTree(env: Record<string, string>, timeout: string) {
    return startCli(
      [
        'run',
        '--json',
        '--timeout',
        timeout,
        '--',
        process.execPath,
        fixturePath('spawn-children.mjs'),
        '1',
        'run-forever.mjs',
      ],
      env,
    );
  }

  it('treewarden kill of a run root: history says cancelled, killed by cli', async () => {
    const { env, reportFile } = testEnv();
    const cli = startTree(env, '60');
    const [parent] = await readReportedPids(tracker, reportFile, 1, { role: 'parent' });
    const rootPid = parent?.pid as number;
    const kill = await runCli(['kill', String(rootPid)]);
    expect(kill.code, kill.stderr).toBe(0);
    await cli.result;
    const run = await historyOf(rootPid);
    expect(run).toMatchObject({ classification: 'cancelled', killedBy: 'cli' });
  });

  it('a root killed by a signal no person sent stays error; a timeout is told as the timeout', async () => {
    const { env, reportFile } = testEnv();
    const cli = startTree(env, '60');
    const [parent] = await readReportedPids(tracker, reportFile, 1, { role: 'parent' });
    const rootPid = parent?.pid as number;
    process.kill(rootPid, 'SIGTERM'); // the recorded root, alive: a "crash" by signal, nobody's kill on record
    await cli.result;
    expect(await historyOf(rootPid)).toMatchObject({ classification: 'error', killedBy: null, signal: 'SIGTERM' });

    const timed = testEnv();
    // Long enough for the fixture to report its tree under load before the timeout ends it.
    const timedCli = startTree(timed.env, '4');
    const [timedParent] = await readReportedPids(tracker, timed.reportFile, 1, { role: 'parent' });
    expect((await timedCli.result).code).toBe(124);
    expect(await historyOf(timedParent?.pid as number)).toMatchObject({
      classification: 'timeout',
      killedBy: 'timeout',
    });
  });
});
