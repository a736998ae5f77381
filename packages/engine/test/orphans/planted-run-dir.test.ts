/**
 * A run dir is evidence only inside runs/. Records planted in our own state dir whose run dir is
 * outside it (absolute, through `..`, through a symlink in runs/, an unrecorded symlink in runs/,
 * a lease file's run) must never make the orphan finder report, or the clean-up kill, an
 * unrelated real process whose cwd is that directory. A real process in a genuine run dir of the
 * same kind of record is found and ended, so the test can tell "ignored" from "blind".
 */
import { rmSync, symlinkSync, utimesSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeLeaseFile } from '../../src/lease/lease-file.js';
import { appendLedgerRecord } from '../../src/ledger/append.js';
import { cleanOrphans } from '../../src/orphans/clean-orphans.js';
import { findOrphans } from '../../src/orphans/find-orphans.js';
import { ensureStateDir, type StatePaths } from '../../src/state/state-dir.js';
import {
  isRunning,
  makeTempDir,
  readReportedPids,
  recordPastRun,
  spawnFixture,
  useProcessTracker,
} from '../helpers/index.js';

const CLEAN_GRACE_MS = 300;
const TEST_TIMEOUT_MS = 60_000;
/** Older than UNRECORDED_RUN_DIR_MIN_AGE_MS, so an unrecorded run dir counts as over. */
const LONG_AGO_S = Date.now() / 1000 - 3600;
const DEAD_IDENTITY = { pid: 4_194_000, startTime: '1' };
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = makeTempDir(prefix);
  dirs.push(dir);
  return dir;
}

function plantEndedRun(paths: StatePaths, runId: string, runDir: string): void {
  const by = { role: 'test' as const, pid: DEAD_IDENTITY.pid, startTime: DEAD_IDENTITY.startTime };
  appendLedgerRecord(
    paths.ledgerFile,
    { kind: 'run_start', runId, command: 'planted', args: [], cwd: runDir, runDir, pid: null, startTime: null },
    by,
  );
  appendLedgerRecord(
    paths.ledgerFile,
    {
      kind: 'run_end',
      runId,
      classification: 'ok',
      exitCode: 0,
      signal: null,
      durationMs: 1,
      killAttempts: 0,
      survivors: [],
    },
    by,
  );
}

function plantEndedLease(paths: StatePaths, runDir: string): void {
  const at = new Date().toISOString();
  writeLeaseFile(paths, {
    v: 1,
    id: 'lease-planted',
    name: 'planted',
    holder: DEAD_IDENTITY,
    guardian: DEAD_IDENTITY,
    createdAt: at,
    subreaper: false,
    runs: [{ runId: 'run-from-lease', runDir, command: 'planted', pid: null, startTime: null, startedAt: at }],
    endedAt: at,
    endReason: 'holder_died',
  });
}

describe('planted run dirs', () => {
  const tracker = useProcessTracker();

  it(
    'never reports or kills an unrelated process whose cwd a planted run dir names',
    async () => {
      const paths = ensureStateDir(join(tempDir('tw-planted-home-'), 'state'));
      const outside = tempDir('tw-planted-outside-');
      const unrelated = spawnFixture(tracker, 'run-forever.mjs', ['unrelated'], { detached: true, cwd: outside });
      const genuineDir = recordPastRun(paths, 'run-genuine');
      const control = spawnFixture(tracker, 'run-forever.mjs', ['control'], { detached: true, cwd: genuineDir });
      await readReportedPids(tracker, unrelated.reportFile, 1);
      await readReportedPids(tracker, control.reportFile, 1);

      plantEndedRun(paths, 'run-absolute', outside);
      plantEndedRun(paths, 'run-dotdot', `${paths.runsDir}/${relative(paths.runsDir, outside)}`);
      symlinkSync(outside, join(paths.runsDir, 'run-symlink'));
      plantEndedRun(paths, 'run-symlink', join(paths.runsDir, 'run-symlink'));
      symlinkSync(outside, join(paths.runsDir, 'run-unrecorded'));
      utimesSync(outside, LONG_AGO_S, LONG_AGO_S);
      plantEndedLease(paths, outside);

      const scan = findOrphans({ paths });
      const reported = scan.groups.flatMap((group) => group.members.map((member) => member.entry.pid));
      expect(reported).toContain(control.pid);
      expect(reported).not.toContain(unrelated.pid);

      const over = scan.groups.filter((group) => group.kind === 'over');
      await cleanOrphans({ ...scan, groups: over }, { paths, graceMs: CLEAN_GRACE_MS });
      expect(isRunning(control.pid)).toBe(false);
      expect(isRunning(unrelated.pid)).toBe(true);
    },
    TEST_TIMEOUT_MS,
  );
});
