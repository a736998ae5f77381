import { statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { readProcEntry } from '../../src/table/linux-proc.js';
import { isRunning, pollUntil, readReportedPids, useProcessTracker } from '../helpers/index.js';
import { nodeFixture, nodeScript, startTracked, useFixtureEnv } from './run-helpers.js';
import { failingKill } from './stub-owner.js';

/** Long enough for a 50 ms heartbeat to beat several times if anything were still alive. */
const QUIET_CHECK_MS = 400;

/** A timeout whose firing the test controls, to place it exactly where a race needs it. */
function manualTimeout() {
  let fire: (() => void) | undefined;
  return {
    scheduleTimeout: (callback: () => void) => {
      fire = callback;
      return () => {
        fire = undefined;
      };
    },
    fire: () => fire?.(),
  };
}

/** Blocks the event loop (so libuv cannot reap) until `pid` is a zombie. */
function blockUntilZombie(pid: number, timeoutMs: number): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + timeoutMs;
  while (readProcEntry(pid)?.state !== 'Z') {
    if (Date.now() > deadline) throw new Error(`pid ${pid} did not become a zombie`);
    Atomics.wait(pause, 0, 0, 5);
  }
}

describe('run timeout and cancel', () => {
  const tracker = useProcessTracker();
  const fixtureEnv = useFixtureEnv();

  it('timeout ends the whole tree: the grandchild heartbeat goes quiet', async () => {
    const { dir, reportFile, env } = fixtureEnv();
    const heartbeat = join(dir, 'heartbeat');
    const timer = manualTimeout();
    const run = startTracked(
      tracker,
      { ...nodeFixture('spawn-children.mjs', ['1', 'spawn-children.mjs', '1', 'heartbeat.mjs', heartbeat]), env },
      { scheduleTimeout: timer.scheduleTimeout },
    );
    const [beat] = await readReportedPids(tracker, reportFile, 1, { role: 'heartbeat' });
    await pollUntil(() => statSync(heartbeat).size > 2, { description: 'the heartbeat to beat' });
    timer.fire();
    const outcome = await run.outcome;
    expect(outcome.classification).toBe('timeout');
    expect(outcome.killAttempts).toBeGreaterThanOrEqual(1);
    expect(outcome.survivors).toEqual([]);
    expect(isRunning(beat?.pid ?? -1)).toBe(false);
    const size = statSync(heartbeat).size;
    await delay(QUIET_CHECK_MS);
    expect(statSync(heartbeat).size).toBe(size);
  });

  it('the real timer fires after timeoutSeconds', async () => {
    const run = startTracked(tracker, { ...nodeFixture('run-forever.mjs'), timeoutSeconds: 1 });
    const outcome = await run.outcome;
    expect(outcome.classification).toBe('timeout');
    expect(outcome.durationMs).toBeGreaterThanOrEqual(1000);
    expect(isRunning(outcome.pid ?? -1)).toBe(false);
  });

  it('a worker that exited 0 in the same instant as its timeout is ok', async () => {
    const timer = manualTimeout();
    const run = startTracked(tracker, nodeScript('process.exit(0)'), { scheduleTimeout: timer.scheduleTimeout });
    const pid = run.identity?.pid ?? -1;
    // The worker has exited but libuv has not reaped it: its status is there, 'exit' not yet fired.
    blockUntilZombie(pid, 15_000);
    timer.fire();
    const outcome = await run.outcome;
    expect(outcome).toMatchObject({ classification: 'ok', exitCode: 0, killAttempts: 0 });
  });

  it('cancel ends the tree and classifies cancelled', async () => {
    const { reportFile, env } = fixtureEnv();
    const run = startTracked(tracker, { ...nodeFixture('spawn-children.mjs', ['2', 'run-forever.mjs']), env });
    const [parent] = await readReportedPids(tracker, reportFile, 1, { role: 'parent' });
    const children = (parent?.children as number[]) ?? [];
    await pollUntil(() => children.every((pid) => isRunning(pid)), { description: 'every child running' });
    const phases: string[] = [];
    run.subscribe((event) => {
      if (event.type === 'phase') phases.push(event.phase);
    });
    run.cancel('stopped from the test');
    const outcome = await run.outcome;
    expect(outcome).toMatchObject({ classification: 'cancelled', error: 'stopped from the test', survivors: [] });
    expect(phases).toEqual(['stopping', 'ended']);
    for (const pid of [outcome.pid ?? -1, ...children]) expect(isRunning(pid)).toBe(false);
  });

  it('kill_failed lists the survivors when the tree outlives the kill', async () => {
    const { reportFile, env } = fixtureEnv();
    const timer = manualTimeout();
    const run = startTracked(
      tracker,
      { ...nodeFixture('spawn-children.mjs', ['1', 'run-forever.mjs']), env },
      {
        scheduleTimeout: timer.scheduleTimeout,
        // Scripted owner: claims both attempts failed and signals nothing, as a kill that does not take.
        killOwner: failingKill,
      },
    );
    const [parent] = await readReportedPids(tracker, reportFile, 1, { role: 'parent' });
    const childPid = ((parent?.children as number[]) ?? [])[0] ?? -1;
    await pollUntil(() => isRunning(childPid), { description: 'the child running' });
    const childIdentity = { pid: childPid, startTime: readProcEntry(childPid)?.startTime ?? '' };
    timer.fire();
    const outcome = await run.outcome;
    expect(outcome.classification).toBe('kill_failed');
    expect(outcome.killAttempts).toBe(2);
    // The direct-kill fallback ended the root; the child it could not reach is the survivor.
    expect(isRunning(outcome.pid ?? -1)).toBe(false);
    expect(outcome.survivors).toContainEqual(childIdentity);
    expect(isRunning(childPid)).toBe(true);
  });
});
