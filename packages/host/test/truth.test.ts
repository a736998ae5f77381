/**
 * The host tells the truth about runs it did not start: a CLI/harness run's real timeout, a leak
 * of a lease whose holder and guardian were SIGKILLed (seen at the next tick, not at the slow
 * scan), the run's end recorded once its leak is cleaned — exactly once, with the CLI looking
 * too — unregistered trees left alone unless asked, and a launch failure said as one.
 */

import { listLeases, RUN_ID_ENV, readLedger, readProcEntry, statePaths } from '@treewarden/engine';
import type { HistoryEntry, HostEvent, KillReport, RunView } from '@treewarden/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../test-support/cli-helpers.js';
import {
  isRunning,
  pollUntil,
  readReportedPids,
  removeTempDir,
  spawnFixture,
  useProcessTracker,
} from '../../../test-support/index.js';
import { startHolder } from '../../../test-support/lease-helpers.js';
import { createEnginePort } from '../src/engine/binding.js';
import { createEngineHost, type EngineHost } from '../src/host.js';
import { ORPHAN_SCAN_IDLE_INTERVAL_MS } from '../src/poll/poller.js';
import {
  EVENT_WAIT_MS,
  expectOk,
  findRun,
  invalidEvents,
  latestSnapshot,
  SLOW_TEST_MS,
  useTestHost,
  waitForRun,
} from './helpers.js';

/** The fixture's lease-holder starts its run with this timeout. */
const HOLDER_RUN_TIMEOUT_SECONDS = 120;

function runEnds(stateDir: string, runId: string): number {
  return readLedger(statePaths(stateDir).ledgerFile).records.filter(
    (record) => record.kind === 'run_end' && record.runId === runId,
  ).length;
}

function killNow(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

describe('engine host: runs of other holders', () => {
  const tracker = useProcessTracker();
  let host: EngineHost | null = null;
  let home: string | null = null;
  const events: HostEvent[] = [];
  afterEach(async () => {
    expect(invalidEvents(events)).toEqual([]);
    events.length = 0;
    await host?.close();
    host = null;
    if (home !== null) removeTempDir(home);
    home = null;
  });

  it(
    'shows a leaked run of a SIGKILLed holder and guardian at the next tick, then records its end once when cleaned',
    async () => {
      const held = await startHolder(tracker, 'run-forever.mjs', ['worker'], 1);
      home = held.home;
      const hostStartedAt = Date.now();
      host = createEngineHost({ port: createEnginePort({ stateDir: held.home }), pollIntervalMs: 250 });
      host.onEvent((event) => events.push(event));

      // 13.1: the real timeout and deadline, from the records, not the 5400 s fallback.
      const running = await waitForRun(events, held.runId, (run) => run.phase === 'running', 'the CLI run');
      expect(running.timeoutSeconds).toBe(HOLDER_RUN_TIMEOUT_SECONDS);
      expect((running.deadlineAtMs ?? 0) - running.startedAtMs).toBe(HOLDER_RUN_TIMEOUT_SECONDS * 1000);
      // Both records carry it: the lease file (what the app lists) and the ledger's run_start.
      const listed = listLeases(statePaths(held.home)).find((status) => status.lease.id === held.leaseId);
      expect(listed?.lease.runs[0]?.timeoutSeconds).toBe(HOLDER_RUN_TIMEOUT_SECONDS);
      const start = readLedger(statePaths(held.home).ledgerFile).records.find(
        (record) => record.kind === 'run_start' && record.runId === held.runId,
      );
      expect(start).toMatchObject({ timeoutSeconds: HOLDER_RUN_TIMEOUT_SECONDS, deadlineAt: expect.any(String) });
      const lease = latestSnapshot(events)?.leases.find((candidate) => candidate.id === held.leaseId);
      expect(lease?.heldByThisApp).toBe(false);
      await waitForRun(events, held.runId, (run) => run.processes.length > 0, 'the run tree to be observed');
      const scansBefore = host.reader.counts().orphans;

      // Guardian first, so it cannot see the holder die and end the run itself.
      killNow(held.guardianPid);
      killNow(held.holderPid);

      // 8.12 + 13.3: judged from the lease registry at the next tick; one list, one count.
      const leaked = await waitForRun(
        events,
        held.runId,
        (run) => run.unsupervised && run.leakedCount > 0,
        'the run to show as an unsupervised leak',
      );
      const snapshot = latestSnapshot(events);
      expect(snapshot?.counts.leaked).toBe(snapshot?.orphans.length);
      expect(snapshot?.orphans.filter((orphan) => orphan.runId === held.runId)).toHaveLength(leaked.leakedCount);
      expect(snapshot?.leases.find((candidate) => candidate.id === held.leaseId)?.leakedCount).toBe(leaked.leakedCount);
      // One scan for the transition (plus the slow periodic one if a loaded machine made this test
      // outlive its interval), and none per tick afterwards: the idle cost stays where it was.
      const scansAtLeak = host.reader.counts().orphans;
      const slowScanDue = Date.now() - hostStartedAt >= ORPHAN_SCAN_IDLE_INTERVAL_MS;
      expect(scansAtLeak - scansBefore).toBeGreaterThanOrEqual(1);
      expect(scansAtLeak - scansBefore).toBeLessThanOrEqual(slowScanDue ? 2 : 1);
      const snapshotsAtLeak = events.filter((event) => event.type === 'snapshot').length;
      await pollUntil(() => events.filter((event) => event.type === 'snapshot').length >= snapshotsAtLeak + 4, {
        deadlineMs: EVENT_WAIT_MS,
        description: 'four more poll ticks',
      });
      // Not one scan per tick: at most one more in four ticks (the run's last process going, or a
      // transient table read on a loaded machine that briefly lost the run's members).
      if (Date.now() - hostStartedAt < ORPHAN_SCAN_IDLE_INTERVAL_MS)
        expect(host.reader.counts().orphans - scansAtLeak).toBeLessThanOrEqual(1);

      const { kills } = expectOk<{ kills: KillReport[] }>(
        await host.handle({ type: 'cleanOrphans', runId: held.runId }),
      );
      expect(kills.map((kill) => kill.result)).toEqual(['killed']);

      // 13.2: ended everywhere, with what is known, and the counts agree at once.
      const ended = await waitForRun(events, held.runId, (run) => run.phase === 'ended', 'the run to end');
      expect(ended.classification).toBe('cancelled');
      expect(ended.endReason).toMatch(
        /holder and guardian are both dead; its processes were ended by the Treewarden app/,
      );
      // Only this run's leaks: another agent leaking on a shared machine is rightly counted too.
      const ownLeaks = () => latestSnapshot(events)?.orphans.filter((orphan) => orphan.runId === held.runId) ?? [];
      await pollUntil(() => ownLeaks().length === 0, {
        deadlineMs: EVENT_WAIT_MS,
        description: "the run's leaks to leave the list",
      });
      expect(latestSnapshot(events)?.counts.leaked).toBe(latestSnapshot(events)?.orphans.length);
      expect(runEnds(held.home, held.runId)).toBe(1);
      expect(events).toContainEqual({
        type: 'runEnded',
        runId: held.runId,
        classification: 'cancelled',
        exitCode: null,
        error: ended.endReason,
      });

      // The CLI looking as well (history settles unsupervised runs) adds nothing: exactly once.
      const clis = await Promise.all(
        [1, 2, 3].map(() => runCli(['history', '--json'], { TREEWARDEN_HOME: held.home })),
      );
      expect(clis.map((cli) => cli.code)).toEqual([0, 0, 0]);
      const { runs } = JSON.parse(clis[0]?.stdout ?? '{}') as {
        runs: { runId: string; classification: string; endedWithoutSupervisor: string | null }[];
      };
      expect(runs.find((run) => run.runId === held.runId)).toMatchObject({
        classification: 'cancelled',
        endedWithoutSupervisor: expect.stringMatching(/ended by the Treewarden app/),
      });
      expect(runEnds(held.home, held.runId)).toBe(1);
      const history = expectOk<{ entries: HistoryEntry[] }>(await host.handle({ type: 'getHistory' }));
      expect(history.entries.find((entry) => entry.runId === held.runId)).toMatchObject({
        classification: 'cancelled',
        timeoutSeconds: HOLDER_RUN_TIMEOUT_SECONDS,
      });

      // 13.5: Retry works from the ledger's command line; Release of someone else's lease says why not.
      expect(ended.retry).toEqual({ available: true, reason: null });
      const retried = expectOk<{ runId: string }>(await host.handle({ type: 'retryRun', runId: held.runId }));
      const again: RunView = await waitForRun(events, retried.runId, (run) => run.root !== null, 'the retried run');
      expect([again.command, ...again.args]).toEqual([ended.command, ...ended.args]);
      const release = await host.handle({ type: 'releaseLease', leaseId: held.leaseId });
      expect(release).toMatchObject({ ok: false, error: expect.stringContaining('not held by this app') });
    },
    SLOW_TEST_MS,
  );

  it(
    'a poll that sees the last process go during the clean-up still records who ended the run',
    async () => {
      const held = await startHolder(tracker, 'run-forever.mjs', ['worker'], 1);
      home = held.home;
      const port = createEnginePort({ stateDir: held.home });
      let started: EngineHost | null = null;
      // The race a loaded machine produced: the target dies (here: SIGKILL) and polls run before
      // the clean-up's kill record is written. They must not settle the run as "exited".
      const racing = {
        ...port,
        async killTree(...args: Parameters<typeof port.killTree>) {
          const [target] = args;
          killNow(target.pid);
          await pollUntil(() => !isRunning(target.pid), { deadlineMs: EVENT_WAIT_MS, description: 'the target gone' });
          await started?.pollNow();
          await started?.pollNow();
          return port.killTree(...args);
        },
      };
      host = createEngineHost({ port: racing, pollIntervalMs: 250 });
      started = host;
      host.onEvent((event) => events.push(event));
      await waitForRun(events, held.runId, (run) => run.phase === 'running', 'the CLI run');
      killNow(held.guardianPid);
      killNow(held.holderPid);
      await waitForRun(events, held.runId, (run) => run.unsupervised && run.leakedCount > 0, 'the unsupervised leak');
      expectOk(await host.handle({ type: 'cleanOrphans', runId: held.runId }));
      const ended = await waitForRun(events, held.runId, (run) => run.phase === 'ended', 'the run to end');
      expect(ended.endReason).toMatch(/its processes were ended by the Treewarden app/);
      expect(runEnds(held.home, held.runId)).toBe(1);
    },
    SLOW_TEST_MS,
  );
});

describe('engine host: clean-up scope and launch failures', () => {
  const tracker = useProcessTracker();
  const startHost = useTestHost();

  it(
    'leaves an unregistered tree alive on the default clean-up and ends it only when asked explicitly',
    async () => {
      const current = startHost(250);
      const runId = `run-unregistered-${process.pid}-${Date.now()}`;
      tracker.trackEnvMarker(RUN_ID_ENV, runId);
      const escaper = spawnFixture(tracker, 'setsid-escape.mjs', ['--exit'], { env: { [RUN_ID_ENV]: runId } });
      const [report] = await readReportedPids(tracker, escaper.reportFile, 1, { role: 'escaper' });
      const escaped = report?.child as number;
      await pollUntil(() => readProcEntry(escaped)?.ppid === 1, {
        deadlineMs: EVENT_WAIT_MS,
        description: 'the escaped child to be reparented to pid 1',
      });

      const byDefault = expectOk<{ kills: KillReport[] }>(await current.host.handle({ type: 'cleanOrphans' }));
      expect(byDefault.kills.some((kill) => kill.target.pid === escaped)).toBe(false);
      expect(isRunning(escaped)).toBe(true);
      const scoped = expectOk<{ kills: KillReport[] }>(await current.host.handle({ type: 'cleanOrphans', runId }));
      expect(scoped.kills).toEqual([]);
      expect(isRunning(escaped)).toBe(true);
      // The snapshot tells it apart, so the UI can ask before ending it.
      await pollUntil(
        () =>
          latestSnapshot(current.events)?.orphans.find((orphan) => orphan.process.pid === escaped)?.kind ===
          'unregistered',
        { deadlineMs: EVENT_WAIT_MS, description: 'the unregistered tree in the snapshot' },
      );

      const explicit = expectOk<{ kills: KillReport[] }>(
        await current.host.handle({ type: 'cleanOrphans', runId, includeUnregistered: true }),
      );
      expect(explicit.kills.map((kill) => [kill.target.pid, kill.result])).toEqual([[escaped, 'killed']]);
      expect(isRunning(escaped)).toBe(false);
    },
    SLOW_TEST_MS,
  );

  it(
    'says a command that cannot start failed, with the engine message, everywhere',
    async () => {
      const current = startHost(250);
      const reply = expectOk<{ runId: string; launchError: string | null }>(
        await current.host.handle({ type: 'startRun', command: 'sleep 200', args: [], timeoutSeconds: 30 }),
      );
      expect(reply.launchError).toMatch(/missing binary: sleep 200 was not found \(ENOENT\)/);
      const run = await waitForRun(current.events, reply.runId, (view) => view.phase === 'ended', 'the run to end');
      expect(run.classification).toBe('missing_binary');
      expect(run.endReason).toBe(reply.launchError);
      const ended = current.events.find((event) => event.type === 'runEnded' && event.runId === reply.runId);
      expect(ended).toMatchObject({ classification: 'missing_binary', error: reply.launchError });
      expect(findRun(latestSnapshot(current.events), reply.runId)?.timeoutSeconds).toBe(30);
    },
    SLOW_TEST_MS,
  );
});
