/**
 * `treewarden run --cgroup` when its guardian is SIGKILLed: the CLI takes the run over in the
 * cgroup the guardian created, and at the deadline its tree kill plus `cgroup.kill` end the whole
 * tree, cookie-less double-forked daemons included; the cgroup is gone afterwards.
 */
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { GuardianLostRecord } from '@treewarden/engine';
import { CGROUP_HOME_NAME, ensureStateDir, listLeases, probeCgroup, readLedger } from '@treewarden/engine';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI_MAIN, collectOutput } from '../../../test-support/cli-helpers.js';
import {
  fixturePath,
  isRunning,
  MAX_LIFETIME_ENV,
  makeTempDir,
  pollUntil,
  REPORT_ENV,
  readReportedPids,
  readReports,
  useProcessTracker,
} from '../../../test-support/index.js';
import { assertGuardianBuilt, NO_SURVIVOR_WAIT_MS } from '../../../test-support/lease-helpers.js';

const PROBE = probeCgroup();
if (!PROBE.available) console.warn(`run --cgroup CLI tests skipped: ${PROBE.reason}`);

/** Far beyond the start-up of CLI, guardian and two daemons on a loaded box. */
const RUN_TIMEOUT_SECONDS = 20;
const CLI_EXIT_WAIT_MS = 90_000;
const TEST_TIMEOUT_MS = 120_000;

describe.skipIf(!PROBE.available)('treewarden run --cgroup', () => {
  const tracker = useProcessTracker();
  const homes: string[] = [];
  beforeAll(() => {
    assertBuilt();
    assertGuardianBuilt();
  });
  afterEach(() => {
    for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
  });

  it(
    'guardian SIGKILLed: the CLI takes over in the same cgroup and ends every member at the deadline',
    async () => {
      const home = makeTempDir('tw-cli-cgroup-');
      homes.push(home);
      const paths = ensureStateDir(home);
      const reportFile = join(home, 'report.jsonl');
      const cli = spawn(
        process.execPath,
        [
          CLI_MAIN,
          'run',
          '--json',
          '--cgroup',
          '--timeout',
          String(RUN_TIMEOUT_SECONDS),
          '--grace',
          '1',
          '--',
          process.execPath,
          fixturePath('stealth-pile.mjs'),
          '2',
        ],
        {
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, TREEWARDEN_HOME: home, [REPORT_ENV]: reportFile, [MAX_LIFETIME_ENV]: '90000' },
        },
      );
      tracker.trackChild(cli, { detached: true });
      const result = collectOutput(cli, { description: 'treewarden run', timeoutMs: CLI_EXIT_WAIT_MS });
      await readReportedPids(tracker, reportFile, 2, { role: 'stealth', timeoutMs: 40_000 });
      const status = await pollUntil(() => listLeases(paths)[0]?.lease ?? null, { description: 'the lease' });
      tracker.trackPid(status.guardian.pid);
      process.kill(status.guardian.pid, 'SIGKILL');
      await pollUntil(
        () => readLedger(paths.ledgerFile).records.find((r): r is GuardianLostRecord => r.kind === 'guardian_lost'),
        { deadlineMs: NO_SURVIVOR_WAIT_MS, description: 'the CLI to record the loss' },
      );

      const ended = await result;
      expect(ended.code).toBe(124);
      const outcome = JSON.parse(ended.stdout) as { classification: string; survivors: unknown[]; cgroup: string };
      expect(outcome).toMatchObject({ classification: 'timeout', survivors: [] });
      expect(outcome.cgroup).toBe(
        join(PROBE.available ? PROBE.path : '', CGROUP_HOME_NAME, status.runs[0]?.runId ?? ''),
      );
      for (const reported of readReports(reportFile)) expect(isRunning(reported.pid), reported.role).toBe(false);
      expect(existsSync(outcome.cgroup)).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );
});
