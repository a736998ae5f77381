/**
 * Guardian loss, seen from a harness: the guardian is SIGKILLed while a holder (a separate node
 * process using the engine's dist build, through `openLease`) holds a run. The holder hears of it
 * at once, takes the run over (the tree stays up, still supervised), records the loss, and its
 * release still ends the whole tree, escaped descendants and a SIGTERM-ignoring one included.
 * Then the takeover itself (`adoptRun`): a tree this process did not spawn is ended at its
 * original deadline, and one whose deadline already passed is ended at once.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { listLeases } from '../../src/lease/registry.js';
import { decodeWaitStatus } from '../../src/lease/subreaper-linux.js';
import { readLedger } from '../../src/ledger/read.js';
import type { GuardianLostRecord, LeaseEndRecord, RunEndRecord } from '../../src/ledger/records.js';
import { adoptRootProcess, UNKNOWN_EXIT_NOTE } from '../../src/run/adopted-root.js';
import { adoptRun } from '../../src/run/start-run.js';
import { RUN_ID_ENV } from '../../src/run/types.js';
import { statePaths } from '../../src/state/state-dir.js';
import { readStatFields } from '../../src/table/linux-stat.js';
import { identityOf, isRunning, readReportedPids, spawnFixture, useProcessTracker, waitFor } from '../helpers/index.js';
import {
  AGENT_TREE_REPORTS,
  expectNoSurvivors,
  type HeldLease,
  LEASE_TEST_TIMEOUT_MS,
  NO_SURVIVOR_WAIT_MS,
  reportsOf,
  scanRunSurvivors,
  startHolder,
} from './lease-helpers.js';

/** Bound for an adopted run to reach its outcome: its timeout, the grace, the kill, on a loaded box. */
const ADOPTED_OUTCOME_WAIT_MS = 30_000;
const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function readStat(pid: number) {
  const stat = readStatFields(pid);
  return stat === null ? null : { startTime: stat.startTicks, state: stat.state };
}

function ledgerOf(held: HeldLease) {
  const { records, torn } = readLedger(statePaths(held.home).ledgerFile);
  expect(torn).toEqual([]);
  return {
    lost: records.find((r): r is GuardianLostRecord => r.kind === 'guardian_lost' && r.leaseId === held.leaseId),
    runEnd: records.find((r): r is RunEndRecord => r.kind === 'run_end' && r.runId === held.runId),
    leaseEnd: records.find((r): r is LeaseEndRecord => r.kind === 'lease_end' && r.leaseId === held.leaseId),
  };
}

describe('guardian loss: a harness holding a lease', () => {
  const tracker = useProcessTracker();

  it(
    'takes the run over when the guardian is SIGKILLed, and its release still ends the whole tree',
    async () => {
      const held = await startHolder(tracker, 'lease-agent-tree.mjs', [], AGENT_TREE_REPORTS);
      homes.push(held.home);
      process.kill(held.guardianPid, 'SIGKILL');

      const [lost] = await readReportedPids(tracker, held.fixture.reportFile, 1, {
        role: 'guardian-lost',
        timeoutMs: NO_SURVIVOR_WAIT_MS,
      });
      expect(lost).toMatchObject({ signal: 'SIGKILL', runsTakenOver: [held.runId] });
      expect((lost as { guardian?: { pid: number } }).guardian?.pid).toBe(held.guardianPid);
      // The run's deadline is 120 s away: the tree is still up, now supervised by the holder.
      expect(scanRunSurvivors(held.runId, held.runDir).length).toBeGreaterThanOrEqual(AGENT_TREE_REPORTS);
      expect(ledgerOf(held).lost).toMatchObject({ runsTakenOver: [held.runId], by: { role: 'holder' } });
      expect(listLeases(statePaths(held.home))[0]?.lease.guardianLostAt).toEqual(expect.any(String));

      process.kill(held.holderPid, 'SIGUSR2');
      const [released] = await readReportedPids(tracker, held.fixture.reportFile, 1, {
        role: 'released',
        timeoutMs: NO_SURVIVOR_WAIT_MS,
      });
      expect(released).toMatchObject({ guardianExited: true, exitCode: null });
      await expectNoSurvivors(held);
      // The holder's run handle resolved from the takeover, not from a guardian that is gone.
      expect(reportsOf(held, 'run-ended')).toEqual([
        expect.objectContaining({ classification: 'cancelled', error: 'lease released', runId: held.runId }),
      ]);
      const { runEnd, leaseEnd } = ledgerOf(held);
      expect(runEnd).toMatchObject({ classification: 'cancelled', survivors: [], by: { role: 'holder' } });
      expect(leaseEnd).toMatchObject({ reason: 'released', runsEnded: [held.runId], survivors: [] });
      const [status] = listLeases(statePaths(held.home));
      expect(status?.state).toBe('released');
      expect(status?.lease.runs[0]?.classification).toBe('cancelled');
    },
    LEASE_TEST_TIMEOUT_MS,
  );
});

describe('adoptRun: supervising a tree someone else launched', () => {
  const tracker = useProcessTracker();

  it(
    'ends the tree, setsid grandchild included, at the original deadline',
    async () => {
      const runId = `run-adopt-${process.pid}-${Date.now()}`;
      tracker.trackEnvMarker(RUN_ID_ENV, runId);
      const tree = spawnFixture(tracker, 'setsid-escape.mjs', [], { detached: true, env: { [RUN_ID_ENV]: runId } });
      const [escaper] = await readReportedPids(tracker, tree.reportFile, 1, { role: 'escaper' });
      await readReportedPids(tracker, tree.reportFile, 1, { role: 'escaped' });
      const escaped = escaper?.child as number;
      const root = identityOf(tree.pid);
      const run = adoptRun(
        { command: 'adopted', runId, timeoutSeconds: 2, graceSeconds: 0.3 },
        { root: adoptRootProcess({ identity: root, readStat }), startedAtMs: Date.now() },
      );
      // Before the deadline the tree is supervised, not ended.
      expect(run.phase).toBe('running');
      expect(isRunning(escaped)).toBe(true);

      const outcome = await waitFor(() => (run.phase === 'ended' ? run.outcome : null), {
        timeoutMs: ADOPTED_OUTCOME_WAIT_MS,
        description: 'the adopted run to end',
      });
      expect(outcome).toMatchObject({ classification: 'timeout', survivors: [], runId, pid: root.pid });
      expect(outcome.durationMs).toBeGreaterThanOrEqual(2000);
      expect(isRunning(tree.pid)).toBe(false);
      expect(isRunning(escaped)).toBe(false);
    },
    LEASE_TEST_TIMEOUT_MS,
  );

  it(
    'ends a tree at once when its deadline passed while nobody supervised it',
    async () => {
      const runId = `run-adopt-late-${process.pid}-${Date.now()}`;
      tracker.trackEnvMarker(RUN_ID_ENV, runId);
      const tree = spawnFixture(tracker, 'ignore-sigterm.mjs', [], { detached: true, env: { [RUN_ID_ENV]: runId } });
      await readReportedPids(tracker, tree.reportFile, 1);
      const root = identityOf(tree.pid);
      const run = adoptRun(
        { command: 'adopted', runId, timeoutSeconds: 1, graceSeconds: 0.3 },
        { root: adoptRootProcess({ identity: root, readStat }), startedAtMs: Date.now() - 60_000 },
      );
      const outcome = await run.outcome;
      expect(outcome).toMatchObject({ classification: 'timeout', survivors: [] });
      expect(isRunning(tree.pid, root.startTime)).toBe(false);
    },
    LEASE_TEST_TIMEOUT_MS,
  );

  it(
    'says the exit status is unknown when the root ended and was not ours to reap',
    async () => {
      const tree = spawnFixture(tracker, 'run-forever.mjs', [], { detached: true });
      await readReportedPids(tracker, tree.reportFile, 1);
      const root = identityOf(tree.pid);
      const run = adoptRun(
        { command: 'adopted', runId: `run-adopt-exit-${process.pid}`, timeoutSeconds: 60 },
        { root: adoptRootProcess({ identity: root, readStat }), startedAtMs: Date.now() },
      );
      process.kill(tree.pid, 'SIGKILL');
      const outcome = await run.outcome;
      expect(outcome.exitCode).toBeNull();
      expect(outcome.signal).toBeNull();
      expect(outcome.error).toBe(UNKNOWN_EXIT_NOTE);
      expect(outcome.classification).not.toBe('ok');
    },
    LEASE_TEST_TIMEOUT_MS,
  );
});

describe('decodeWaitStatus', () => {
  it('reads exit codes and terminating signals as WEXITSTATUS/WTERMSIG do', () => {
    expect(decodeWaitStatus(0)).toEqual({ exitCode: 0, signal: null });
    expect(decodeWaitStatus(3 << 8)).toEqual({ exitCode: 3, signal: null });
    expect(decodeWaitStatus(9)).toEqual({ exitCode: null, signal: 'SIGKILL' });
    expect(decodeWaitStatus(15 | 0x80)).toEqual({ exitCode: null, signal: 'SIGTERM' });
  });
});
