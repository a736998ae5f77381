/**
 * Limits through a lease: the holder's startRun sends them in the start message, the guardian's
 * run supervisor enforces them (its validation runs again there), the run ends with the limit's
 * classification and nothing survives, and the guardian's ledger records the limits and the trip.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openLease } from '../../src/lease/open-lease.js';
import { readLedger } from '../../src/ledger/read.js';
import type { RunEndRecord, RunStartRecord } from '../../src/ledger/records.js';
import { RunSpecError } from '../../src/run/validate.js';
import { statePaths } from '../../src/state/state-dir.js';
import { fixturePath, MAX_LIFETIME_ENV, makeTempDir, REPORT_ENV, useProcessTracker } from '../helpers/index.js';
import { cookieCarriers } from '../run/stub-owner.js';
import { assertGuardianBuilt, LEASE_TEST_TIMEOUT_MS } from './lease-helpers.js';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

describe('limits through a lease (guardian path)', () => {
  const tracker = useProcessTracker();

  it(
    'a process limit passed to openLease().startRun trips in the guardian and is in the ledger',
    async () => {
      assertGuardianBuilt();
      const home = makeTempDir('tw-lease-home-');
      homes.push(home);
      const lease = await openLease({ name: 'limits', stateDir: home, guardianOutput: 'ignore' });
      tracker.trackPid(lease.guardian.pid);
      const env = { [REPORT_ENV]: join(home, 'report.jsonl'), [MAX_LIFETIME_ENV]: '60000' };
      try {
        // Refused on the holder's side, synchronously, before any message is sent.
        expect(() => lease.startRun({ command: 'true', limits: { maxProcs: 0 } })).toThrow(RunSpecError);
        const run = lease.startRun({
          command: fixturePath('fork-loop.sh'),
          args: [join(home, 'count'), '40', '4', '--setsid'],
          env,
          timeoutSeconds: 60,
          graceSeconds: 0.5,
          limits: { maxProcs: 6 },
        });
        tracker.trackEnvMarker('TREEWARDEN_RUN_ID', run.id);
        const outcome = await run.outcome;
        expect(outcome.classification).toBe('process_limit');
        expect(outcome.limit).toMatchObject({ name: 'max-procs', value: 6 });
        expect(outcome.limitEnforcement).toBe('polling');
        expect(outcome.survivors).toEqual([]);
        expect(cookieCarriers(run.id)).toEqual([]);
        const records = readLedger(statePaths(home).ledgerFile).records;
        const start = records.find((r): r is RunStartRecord => r.kind === 'run_start' && r.runId === run.id);
        const end = records.find((r): r is RunEndRecord => r.kind === 'run_end' && r.runId === run.id);
        expect(start?.limits).toEqual({ maxProcs: 6 });
        expect(start?.limitEnforcement).toBe('polling');
        expect(end?.classification).toBe('process_limit');
        expect(end?.limit).toEqual(outcome.limit);
        expect(end?.by.role).toBe('guardian');
      } finally {
        const released = await lease.release();
        expect(released.guardianExited).toBe(true);
      }
    },
    LEASE_TEST_TIMEOUT_MS,
  );
});
