/**
 * The harness-death matrix: a holder (a separate node process using the engine's dist build)
 * runs a fake agent whose tree holds a same-group agent, a detached INT/TERM trapper and a
 * setsid'd grandchild. However the holder ends, its guardian ends every process of the run.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AGENT_TREE_REPORTS,
  expectGuardianGone,
  expectNoSurvivors,
  type HeldLease,
  LEASE_TEST_TIMEOUT_MS,
  NO_SURVIVOR_WAIT_MS,
  reportsOf,
  scanRunSurvivors,
  startHolder,
} from '../../../../test-support/lease-helpers.js';
import { listLeases } from '../../src/lease/registry.js';
import { readLedger } from '../../src/ledger/read.js';
import type { LeaseEndRecord, RunEndRecord } from '../../src/ledger/records.js';
import { statePaths } from '../../src/state/state-dir.js';
import { readProcEntry } from '../../src/table/linux-proc.js';
import { pollUntil, useProcessTracker } from '../helpers/index.js';

const HOLDER_EXIT_WAIT_MS = 20_000;
const REPORT_WAIT = { deadlineMs: NO_SURVIVOR_WAIT_MS, description: 'the holder to report' };
const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function ledgerOf(held: HeldLease) {
  const { records, torn } = readLedger(statePaths(held.home).ledgerFile);
  expect(torn).toEqual([]);
  const leaseEnd = records.find((r): r is LeaseEndRecord => r.kind === 'lease_end' && r.leaseId === held.leaseId);
  const runEnd = records.find((r): r is RunEndRecord => r.kind === 'run_end' && r.runId === held.runId);
  return { records, leaseEnd, runEnd };
}

async function startAgentTree(tracker: ReturnType<typeof useProcessTracker>): Promise<HeldLease> {
  const held = await startHolder(tracker, 'lease-agent-tree.mjs', [], AGENT_TREE_REPORTS);
  homes.push(held.home);
  // The tree is really there before the holder dies: the check below could fail.
  expect(scanRunSurvivors(held.runId, held.runDir).length).toBeGreaterThanOrEqual(AGENT_TREE_REPORTS);
  return held;
}

async function expectHolderGone(held: HeldLease): Promise<void> {
  await pollUntil(() => readProcEntry(held.holderPid) === null || readProcEntry(held.holderPid)?.state === 'Z', {
    deadlineMs: HOLDER_EXIT_WAIT_MS,
    description: 'the holder to exit',
  });
}

async function expectEndedByGuardian(held: HeldLease, reason: 'holder_died' | 'released'): Promise<void> {
  await expectNoSurvivors(held);
  await expectGuardianGone(held);
  const { leaseEnd, runEnd } = ledgerOf(held);
  expect(leaseEnd?.reason).toBe(reason);
  expect(leaseEnd?.survivors).toEqual([]);
  expect(runEnd?.classification).toBe('cancelled');
  const [status] = listLeases(statePaths(held.home));
  expect(status?.state).toBe(reason === 'released' ? 'released' : 'ended');
  expect(status?.holderAlive).toBe(false);
}

describe('lease guardian: the harness-death matrix', () => {
  const tracker = useProcessTracker();

  it(
    'ends the whole run when the holder alone is SIGKILLed',
    async () => {
      const held = await startAgentTree(tracker);
      process.kill(held.holderPid, 'SIGKILL');
      await expectEndedByGuardian(held, 'holder_died');
    },
    LEASE_TEST_TIMEOUT_MS,
  );

  it(
    "ends the whole run when the holder's whole process group is SIGKILLed",
    async () => {
      const held = await startAgentTree(tracker);
      process.kill(-held.holderPid, 'SIGKILL');
      await expectEndedByGuardian(held, 'holder_died');
    },
    LEASE_TEST_TIMEOUT_MS,
  );

  it(
    'ends the whole run when the holder throws an uncaught exception',
    async () => {
      const held = await startAgentTree(tracker);
      process.kill(held.holderPid, 'SIGUSR1');
      await expectHolderGone(held);
      await expectEndedByGuardian(held, 'holder_died');
    },
    LEASE_TEST_TIMEOUT_MS,
  );

  it(
    'ends the whole run when the holder releases the lease (normal completion)',
    async () => {
      const held = await startAgentTree(tracker);
      process.kill(held.holderPid, 'SIGUSR2');
      const [released] = await pollUntil(() => {
        const found = reportsOf(held, 'released');
        return found.length > 0 ? found : null;
      }, REPORT_WAIT);
      // release() returns only once the guardian ended the runs and exited.
      expect(released?.guardianExited).toBe(true);
      expect(scanRunSurvivors(held.runId, held.runDir)).toEqual([]);
      // The holder reports, then exits: let it finish before judging its liveness.
      await expectHolderGone(held);
      await expectEndedByGuardian(held, 'released');
    },
    LEASE_TEST_TIMEOUT_MS,
  );

  it(
    'records a run that completes on its own as ok, then releases cleanly',
    async () => {
      const held = await startHolder(tracker, 'exit-at.mjs', [String(Date.now() + 500)], 0);
      homes.push(held.home);
      const [ended] = await pollUntil(() => {
        const found = reportsOf(held, 'run-ended');
        return found.length > 0 ? found : null;
      }, REPORT_WAIT);
      expect(ended?.classification).toBe('ok');
      await expectHolderGone(held);
      await expectGuardianGone(held);
      expect(scanRunSurvivors(held.runId, held.runDir)).toEqual([]);
      const { leaseEnd, runEnd } = ledgerOf(held);
      expect(runEnd?.classification).toBe('ok');
      expect(leaseEnd?.reason).toBe('released');
      expect(leaseEnd?.runsEnded).toEqual([]);
    },
    LEASE_TEST_TIMEOUT_MS,
  );
});
