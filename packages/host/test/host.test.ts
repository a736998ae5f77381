import { setTimeout as delay } from 'node:timers/promises';
import { threadId } from 'node:worker_threads';
import { RUN_ID_ENV, readProcEntry } from '@treewarden/engine';
import type { HostEvent, KillReport } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import {
  fixturePath,
  isRunning,
  pollUntil,
  readReportedPids,
  spawnFixture,
  useProcessTracker,
} from '../../../test-support/index.js';
import { REQUESTED_POLL_DELAY_MS } from '../src/poll/poller.js';
import {
  EVENT_WAIT_MS,
  expectOk,
  latestSnapshot,
  recordEndedRun,
  SLOW_TEST_MS,
  startTrackedRun,
  useTestHost,
  waitForRun,
} from './helpers.js';

describe('engine host', () => {
  const tracker = useProcessTracker();
  const startHost = useTestHost();

  it(
    'starts a run under its own lease, shows its tree, kills it with a timeline',
    async () => {
      const { host, events } = startHost();
      const started = await startTrackedRun(host, tracker, {
        command: process.execPath,
        args: [fixturePath('spawn-children.mjs'), '--detached', '2', 'run-forever.mjs'],
        timeoutSeconds: 60,
      });
      const run = await waitForRun(
        events,
        started.runId,
        // A child is caught between fork and setsid now and then: wait until both have escaped.
        (view) => view.processes.filter((node) => node.escaped).length >= 2,
        'run tree with 2 escaped children',
      );
      expect(run.phase).toBe('running');
      expect(run.root).not.toBeNull();
      expect(run.processes.filter((node) => node.escaped)).toHaveLength(2);
      expect(run.processes.find((node) => node.pid === run.root?.pid)?.escaped).toBe(false);

      const root = run.root as { pid: number; startTime: string };
      const report = expectOk<KillReport>(await host.handle({ type: 'killTree', target: root, graceSeconds: 1 }));
      expect(report.result).toBe('killed');
      expect(report.timeline.map((step) => step.action)).toContain('SIGTERM');
      for (const node of run.processes) expect(isRunning(node.pid, node.startTime)).toBe(false);
      expect(events.some((event) => event.type === 'killOutcome' && event.runId === started.runId)).toBe(true);
      await pollUntil(() => events.some((event) => event.type === 'runEnded' && event.runId === started.runId), {
        deadlineMs: EVENT_WAIT_MS,
        description: 'runEnded event',
      });
    },
    SLOW_TEST_MS,
  );

  it(
    'retries a run with the same command, then releases the lease it ran under',
    async () => {
      const { host, events } = startHost();
      const ended = (runId: string) =>
        pollUntil(
          () =>
            events.find(
              (event): event is Extract<HostEvent, { type: 'runEnded' }> =>
                event.type === 'runEnded' && event.runId === runId,
            ),
          { deadlineMs: EVENT_WAIT_MS, description: `run ${runId} to end` },
        );
      const first = expectOk<{ runId: string; leaseId: string }>(
        await host.handle({
          type: 'startRun',
          command: process.execPath,
          args: ['-e', 'process.exit(3)'],
          timeoutSeconds: 30,
        }),
      );
      expect((await ended(first.runId)).exitCode).toBe(3);
      const retried = expectOk<{ runId: string; leaseId: string }>(
        await host.handle({ type: 'retryRun', runId: first.runId }),
      );
      expect(retried.runId).not.toBe(first.runId);
      expect(retried.leaseId).toBe(first.leaseId);
      expect((await ended(retried.runId)).classification).toBe('error');
      const history = expectOk<{ entries: { runId: string; exitCode: number | null }[] }>(
        await host.handle({ type: 'getHistory' }),
      );
      expect(history.entries.find((entry) => entry.runId === first.runId)?.exitCode).toBe(3);
      const refused = await host.handle({ type: 'releaseLease', leaseId: 'lease-held-by-someone-else' });
      expect(refused.ok === false && refused.error).toMatch(/not held by this app/);
      const released = expectOk<{ released: boolean }>(
        await host.handle({ type: 'releaseLease', leaseId: first.leaseId }),
      );
      expect(released.released).toBe(true);
      await host.pollNow();
      const lease = latestSnapshot(events)?.leases.find((view) => view.id === first.leaseId);
      expect(lease?.holderState).toBe('released');
    },
    SLOW_TEST_MS,
  );

  it(
    'kills a subtree of a live run and leaves the rest of the run alone',
    async () => {
      const { host, events } = startHost();
      const started = await startTrackedRun(host, tracker, {
        command: process.execPath,
        args: [fixturePath('spawn-children.mjs'), '2', 'run-forever.mjs'],
        timeoutSeconds: 60,
      });
      const run = await waitForRun(
        events,
        started.runId,
        (view) => view.processes.length >= 3,
        'run tree with 3 processes',
      );
      const [child, sibling] = run.processes.filter((node) => node.pid !== run.root?.pid);
      if (child === undefined || sibling === undefined || run.root === null)
        throw new Error('expected a root and two children');
      const report = expectOk<KillReport>(await host.handle({ type: 'killTree', target: child, graceSeconds: 1 }));
      expect(report.result).toBe('killed');
      expect(report.killed.map((identity) => identity.pid)).toEqual([child.pid]);
      expect(isRunning(child.pid, child.startTime)).toBe(false);
      expect(isRunning(sibling.pid, sibling.startTime)).toBe(true);
      expect(isRunning(run.root.pid, run.root.startTime)).toBe(true);
    },
    SLOW_TEST_MS,
  );

  it('refuses a kill naming a stale identity, with a message that says so', async () => {
    const current = startHost();
    const fixture = spawnFixture(tracker, 'run-forever.mjs');
    const result = await current.host.handle({ type: 'killTree', target: { pid: fixture.pid, startTime: '1' } });
    const report = expectOk<KillReport>(result);
    expect(report.result).toBe('refused');
    expect(report.error).toMatch(/different process/);
    expect(isRunning(fixture.pid)).toBe(true);
  });

  it('refuses malformed commands without running anything', async () => {
    const { host } = startHost();
    for (const bad of [
      null,
      'killTree',
      { type: 'nope' },
      { type: 'killTree', target: { pid: -1, startTime: 'x' } },
      { type: 'startRun', command: 'x', args: [], timeoutSeconds: 0 },
    ]) {
      const result = await host.handle(bad);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error).toMatch(/invalid command|not valid JSON/);
    }
  });

  it(
    'sends the system table as a full diff, then incremental diffs',
    async () => {
      const { host, events } = startHost(60_000);
      const watch = expectOk<{ enabled: boolean; processes: { pid: number }[] }>(
        await host.handle({ type: 'watchSystem', enabled: true }),
      );
      expect(watch.processes.some((node) => node.pid === process.pid)).toBe(true);
      // watchSystem also asked for a poll soon, on a timer. A timer of the same delay set after it
      // fires after it, and pollNow waits for the tick in flight: so that tick is over before the
      // fixture starts, and cannot run between the reap and the explicit poll below (taking the
      // removal diff for itself). Not a wait for a process: only for the host's own timer.
      await delay(REQUESTED_POLL_DELAY_MS);
      await host.pollNow();
      const diffs = () => events.flatMap((event) => (event.type === 'systemDiff' ? [event] : []));
      expect(diffs()[0]?.full).toBe(true);
      expect(diffs()[0]?.upserts.length).toBeGreaterThan(0);
      // The diffs since a point, not the last one alone: the host may tick on its own in between
      // (a watched agent session's root that exits elsewhere on the machine asks for a poll at once),
      // and that tick's diff then carries the change.
      const diffsSince = (count: number) => diffs().slice(count);
      const beforeSpawn = diffs().length;
      const fixture = spawnFixture(tracker, 'run-forever.mjs');
      await host.pollNow();
      const afterSpawn = diffsSince(beforeSpawn);
      expect(afterSpawn.length).toBeGreaterThan(0);
      expect(afterSpawn.every((diff) => !diff.full)).toBe(true);
      const added = afterSpawn.find((diff) => diff.upserts.some((node) => node.pid === fixture.pid));
      expect(added?.upserts.length).toBeLessThan(watch.processes.length);
      const key = `${fixture.pid}:${added?.upserts.find((node) => node.pid === fixture.pid)?.startTime}`;
      const beforeEnd = diffs().length;
      await tracker.cleanup();
      // Killed is not yet gone: until Node reaps it, the fixture is a zombie that still has a /proc entry.
      await pollUntil(() => readProcEntry(fixture.pid) === null, {
        deadlineMs: EVENT_WAIT_MS,
        description: 'the killed fixture to be reaped',
      });
      await host.pollNow();
      expect(diffsSince(beforeEnd).flatMap((diff) => diff.removed)).toContain(key);
      expectOk(await host.handle({ type: 'watchSystem', enabled: false }));
      const count = diffs().length;
      await host.pollNow();
      expect(diffs().length).toBe(count);
    },
    SLOW_TEST_MS,
  );

  it('refreshes only the owned trees while no view watches the system', async () => {
    const { host } = startHost(60_000);
    const fixture = spawnFixture(tracker, 'run-forever.mjs');
    // Let the first tick (with its one idle-interval orphan scan) pass, then count.
    await host.pollNow();
    const before = host.reader.counts();
    for (let i = 0; i < 3; i += 1) await host.pollNow();
    expect(host.reader.counts().all).toBe(before.all);
    expect(host.reader.counts().orphans).toBe(before.orphans);
    expectOk(await host.handle({ type: 'watchSystem', enabled: true }));
    await host.pollNow();
    expect(host.reader.counts().all).toBeGreaterThan(before.all);
    expect(isRunning(fixture.pid)).toBe(true);
  });

  it('reads the table in a worker thread while the main loop stays free', async () => {
    const current = startHost(60_000);
    const { reader } = current.host;
    let turns = 0;
    const spin = setInterval(() => {
      turns += 1;
    }, 1);
    const table = await reader.readAll();
    clearInterval(spin);
    expect(table?.entries.has(process.pid)).toBe(true);
    const last = reader.lastRead();
    expect(last?.threadId).not.toBe(threadId);
    // The main loop kept turning while the read ran elsewhere.
    expect(turns).toBeGreaterThan(0);
  });
});

describe('engine host: leaks and scenarios', () => {
  const tracker = useProcessTracker();
  const startHost = useTestHost();

  it(
    'finds a process of an ended run and cleans it with the revalidated kill',
    async () => {
      const current = startHost(60_000);
      // A run this host's ledger says is over, and a process still carrying its cookie. It stays
      // our child (not reparented to pid 1), so orphan sweeps of other state dirs ignore it.
      const runId = `run-leak-${process.pid}-${Date.now()}`;
      tracker.trackEnvMarker(RUN_ID_ENV, runId);
      recordEndedRun(current.stateDir, runId);
      const fixture = spawnFixture(tracker, 'run-forever.mjs', [], { detached: true, env: { [RUN_ID_ENV]: runId } });
      await readReportedPids(tracker, fixture.reportFile, 1);
      const leaked = fixture.pid;
      const result = expectOk<{ kills: KillReport[] }>(await current.host.handle({ type: 'cleanOrphans' }));
      const kill = result.kills.find((report) => report.target.pid === leaked);
      expect(kill?.result).toBe('killed');
      expect(isRunning(leaked)).toBe(false);
    },
    SLOW_TEST_MS,
  );

  it('lists the engine scenarios in the protocol shape', async () => {
    const current = startHost(60_000);
    const { scenarios } = expectOk<{ scenarios: { name: string; available: boolean }[] }>(
      await current.host.handle({ type: 'listScenarios' }),
    );
    expect(scenarios.length).toBeGreaterThan(5);
    expect(scenarios.some((scenario) => scenario.name === 'setsid-escape')).toBe(true);
  });
});
