/**
 * The app's cgroup placement: the host probes once and says so in every snapshot, a New Run with
 * `cgroup: true` (the UI's command, parsed at the boundary) runs in its own real cgroup v2, the
 * details say which path enforced its limits, the cgroup is gone after the run, and Retry keeps it.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { probeCgroup, RUN_ID_ENV, TREEWARDEN_HOME_ENV } from '@treewarden/engine';
import { commandSchema, type HostEvent, type RunView } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { fixturePath, pollUntil, useProcessTracker } from '../../../test-support/index.js';
import { EVENT_WAIT_MS, expectOk, latestSnapshot, SLOW_TEST_MS, useTestHost, waitForRun } from './helpers.js';

const PROBE = probeCgroup();
/** The built CLI (`npx tsc -b` first): a run another holder started, seen by the host from the ledger. */
const CLI_MAIN = join(import.meta.dirname, '..', '..', '..', 'apps', 'cli', 'dist', 'main.js');
if (!PROBE.available) console.warn(`host cgroup run tests skipped: ${PROBE.reason}`);

/** The cgroup v2 line (`0::/PATH`) of a live process. */
function cgroupLineOf(pid: number): string | null {
  const text = readFileSync(`/proc/${pid}/cgroup`, 'utf8');
  return /^0::(\/.*)$/m.exec(text)?.[1] ?? null;
}

describe('runs in their own cgroup from the app', () => {
  const tracker = useProcessTracker();
  const startHost = useTestHost();

  it('the snapshot carries the probe, taken once at host start', async () => {
    const { events } = startHost();
    const snapshot = await pollUntil(() => latestSnapshot(events), {
      deadlineMs: EVENT_WAIT_MS,
      description: 'a first snapshot',
    });
    expect(snapshot.capabilities?.cgroup?.available).toBe(PROBE.available);
    if (PROBE.available && snapshot.capabilities?.cgroup?.available === true)
      expect(snapshot.capabilities.cgroup.path).toBe(PROBE.path);
  });

  it('the startRun command accepts cgroup as a boolean only', () => {
    const base = { type: 'startRun', command: 'true', args: [], timeoutSeconds: 10 };
    expect(commandSchema.safeParse({ ...base, cgroup: true }).success).toBe(true);
    expect(commandSchema.safeParse({ ...base, cgroup: 'yes' }).success).toBe(false);
  });

  it.skipIf(!PROBE.available)(
    'a New Run with cgroup: true runs in a real cgroup that is gone after the run; Retry keeps it',
    async () => {
      if (!PROBE.available) return;
      const { host, events } = startHost();
      const ended = (runId: string) =>
        pollUntil(() => events.find((event) => event.type === 'runEnded' && event.runId === runId) ?? null, {
          deadlineMs: EVENT_WAIT_MS * 2,
          description: `run ${runId} to end`,
        });
      const runInCgroup = async (runId: string): Promise<RunView> => {
        tracker.trackEnvMarker(RUN_ID_ENV, runId);
        const view = await waitForRun(
          events,
          runId,
          (run) => run.root !== null && run.cgroup !== undefined,
          'the run with its root and cgroup',
        );
        const expected = join(PROBE.path, 'treewarden', runId);
        expect(view.cgroup).toBe(expected);
        expect(view.limitEnforcement).toBe('cgroup');
        expect(view.limitMethods?.['max-procs']).toBe('cgroup.procs');
        // The kernel's own word: the worker lives in the run's cgroup.
        const line = cgroupLineOf(view.root?.pid ?? 0);
        expect(line).not.toBeNull();
        expect(expected.endsWith(line ?? '\0')).toBe(true);
        expect(line?.endsWith(`/treewarden/${runId}`)).toBe(true);
        return view;
      };
      const endAndCheckGone = async (view: RunView): Promise<HostEvent> => {
        if (view.root === null) throw new Error('no root');
        expectOk(await host.handle({ type: 'killTree', target: view.root }));
        const end = await ended(view.id);
        const path = view.cgroup ?? '';
        await pollUntil(() => !existsSync(path), {
          deadlineMs: EVENT_WAIT_MS,
          description: `the run's cgroup ${path} to be removed`,
        });
        return end;
      };

      const started = expectOk<{ runId: string }>(
        await host.handle({
          type: 'startRun',
          command: process.execPath,
          args: [fixturePath('run-forever.mjs')],
          timeoutSeconds: 120,
          limits: { maxProcs: 50 },
          cgroup: true,
        }),
      );
      const first = await runInCgroup(started.runId);
      await endAndCheckGone(first);
      // After the end the details still say the cgroup (the outcome's word).
      const after = await waitForRun(events, started.runId, (run) => run.phase === 'ended', 'the ended run');
      expect(after.cgroup).toBe(first.cgroup);

      const retried = expectOk<{ runId: string }>(await host.handle({ type: 'retryRun', runId: started.runId }));
      const second = await runInCgroup(retried.runId);
      await endAndCheckGone(second);
    },
    SLOW_TEST_MS,
  );

  it.skipIf(!PROBE.available)(
    "a CLI run's cgroup shows from its run_start record, and Retry of it from the app keeps the cgroup",
    async () => {
      if (!PROBE.available) return;
      const { host, events, stateDir } = startHost();
      const cli = spawn(
        process.execPath,
        [
          CLI_MAIN,
          'run',
          '--cgroup',
          '--max-procs',
          '50',
          '--timeout',
          '120',
          '--',
          process.execPath,
          fixturePath('run-forever.mjs'),
        ],
        { stdio: 'ignore', env: { ...process.env, [TREEWARDEN_HOME_ENV]: stateDir } },
      );
      tracker.trackChild(cli);
      const foreign = await pollUntil(
        () =>
          latestSnapshot(events)
            ?.leases.filter((lease) => !lease.heldByThisApp)
            .flatMap((lease) => lease.runs)
            .find((run) => run.root !== null && run.cgroup !== undefined) ?? null,
        { deadlineMs: EVENT_WAIT_MS, description: "the CLI's run with its cgroup" },
      );
      tracker.trackEnvMarker(RUN_ID_ENV, foreign.id);
      expect(foreign.cgroup).toBe(join(PROBE.path, 'treewarden', foreign.id));
      expect(foreign.limitEnforcement).toBe('cgroup');
      if (foreign.root === null) throw new Error('no root');
      expectOk(await host.handle({ type: 'killTree', target: foreign.root }));
      await waitForRun(events, foreign.id, (run) => run.phase === 'ended' && run.retry.available, 'the CLI run ended');

      const retried = expectOk<{ runId: string }>(await host.handle({ type: 'retryRun', runId: foreign.id }));
      tracker.trackEnvMarker(RUN_ID_ENV, retried.runId);
      const view = await waitForRun(
        events,
        retried.runId,
        (run) => run.root !== null && run.cgroup !== undefined,
        'the retried run in its cgroup',
      );
      expect(cgroupLineOf(view.root?.pid ?? 0)?.endsWith(`/treewarden/${retried.runId}`)).toBe(true);
      if (view.root !== null) expectOk(await host.handle({ type: 'killTree', target: view.root }));
      await pollUntil(() => !existsSync(view.cgroup ?? ''), {
        deadlineMs: EVENT_WAIT_MS,
        description: "the retried run's cgroup to be removed",
      });
    },
    SLOW_TEST_MS,
  );
});
