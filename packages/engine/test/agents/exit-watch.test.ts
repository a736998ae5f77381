/**
 * The kernel-told exit watch of live sessions' roots (pidfd), on real processes: a live root is
 * never told; a killed root is told within moments, without any look by timer (the watching
 * thread only wakes on an exit or a change); a zombie is an exit; a pid whose start time differs
 * (recycled) is told at once; a root no longer watched is not told; closing ends the thread.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  identityOf,
  isRunning,
  pollUntil,
  startZombieToBe,
  useProcessTracker,
} from '../../../../test-support/index.js';
import { createExitWatch, EXIT_WATCH_THREAD_NAME, exitWatchAvailable } from '../../src/agents/sessions/exit-watch.js';
import { createTickWaiter } from '../../src/agents/sessions/root-watch.js';
import { endNativeThreads, liveNativeThreads } from '../../src/runtime/native-threads.js';
import type { ProcessIdentity } from '../../src/table/types.js';

const tracker = useProcessTracker();
/** Far under the timer look's 250 ms period, far over a pidfd wake on a loaded machine. */
const TOLD_WITHIN_MS = 2000;
/** Longer than any test's timeout: a wait that returns at all returned early. */
const NEVER_MS = 600_000;

async function startSleeper(): Promise<number> {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  tracker.trackChild(child);
  const pid = child.pid as number;
  await pollUntil(() => isRunning(pid), { description: 'the sleeper' });
  return pid;
}

/** The calls' exits, in order, and a wait for the next. */
function recorder() {
  const told: ProcessIdentity[][] = [];
  return {
    told,
    onExit: (exited: ProcessIdentity[]) => told.push(exited),
    toldPids: () => told.flat().map((root) => root.pid),
  };
}

/**
 * This process's exit-watch threads, by their name: a count of all threads moved with other test
 * files' threads ending in this shared worker (a CI run timed out on it).
 */
const threadCount = () =>
  readdirSync('/proc/self/task').filter((tid) => {
    try {
      return readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() === EXIT_WATCH_THREAD_NAME;
    } catch {
      return false; // ended since the listing
    }
  }).length;

describe.skipIf(process.platform !== 'linux' || !exitWatchAvailable())('exit watch (pidfd)', () => {
  it('tells a killed root once, at once, and never a live one', async () => {
    const live = await startSleeper();
    const doomed = await startSleeper();
    const seen = recorder();
    const watch = createExitWatch(seen.onExit);
    if (watch === null) throw new Error('exit watch unavailable');
    try {
      const roots = [identityOf(live), identityOf(doomed)];
      watch.watch(roots);
      // Nothing exits: nothing is told (the thread sleeps in poll, no timer looks).
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(seen.told).toEqual([]);
      const killedAt = performance.now();
      process.kill(doomed, 'SIGKILL');
      await pollUntil(() => seen.told.length > 0, { deadlineMs: TOLD_WITHIN_MS, description: 'the exit told' });
      const latencyMs = performance.now() - killedAt;
      expect(seen.toldPids()).toEqual([doomed]);
      // The same roots again: no change, so no second telling of the one that exited.
      watch.watch([...roots]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(seen.toldPids()).toEqual([doomed]);
      expect(latencyMs).toBeLessThan(TOLD_WITHIN_MS);
    } finally {
      watch.close();
    }
  });

  it('counts a zombie and a recycled pid as exited, and lets a dropped root go', async () => {
    const zombiePid = await startZombieToBe(tracker);
    const dropped = await startSleeper();
    const seen = recorder();
    const watch = createExitWatch(seen.onExit);
    if (watch === null) throw new Error('exit watch unavailable');
    try {
      const zombie = identityOf(zombiePid);
      const recycled = { ...identityOf(dropped), startTime: `${identityOf(dropped).startTime}1` };
      watch.watch([zombie, identityOf(dropped), recycled]);
      // The wrong start time is another process under the pid: told as soon as it is watched.
      await pollUntil(() => seen.told.length > 0, { deadlineMs: TOLD_WITHIN_MS, description: 'the recycled pid' });
      expect(seen.told.flat()).toEqual([recycled]);
      watch.watch([zombie]);
      process.kill(dropped, 'SIGKILL');
      process.kill(zombiePid, 'SIGKILL');
      await pollUntil(() => seen.told.length > 1, { deadlineMs: TOLD_WITHIN_MS, description: 'the zombie told' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      // The zombie is told; the sleeper no longer watched is not.
      expect(seen.told.slice(1).flat()).toEqual([zombie]);
      expect(isRunning(zombiePid)).toBe(false);
    } finally {
      watch.close();
    }
  });

  it('tells a zombie root once though a set still naming it reaches the thread after its exit', async () => {
    const zombiePid = await startZombieToBe(tracker);
    const other = await startSleeper();
    const seen = recorder();
    const watch = createExitWatch(seen.onExit);
    if (watch === null) throw new Error('exit watch unavailable');
    try {
      const zombie = identityOf(zombiePid);
      watch.watch([zombie, identityOf(other)]);
      process.kill(zombiePid, 'SIGKILL');
      await pollUntil(() => seen.told.length > 0, { deadlineMs: TOLD_WITHIN_MS, description: 'the zombie told' });
      // A new set that still names it (as a tick's set, sent before that tick saw the exit, does):
      // the thread opens the zombie again, and its pidfd polls readable at once.
      watch.watch([zombie]);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(seen.told).toEqual([[zombie]]);
    } finally {
      watch.close();
    }
  });

  it('ends its thread when closed, and starts none while nothing is watched', async () => {
    // The earlier tests' watches were closed, but a closed thread ends a moment later.
    await pollUntil(() => threadCount() === 0, { description: "the earlier tests' watch threads to end" });
    const before = threadCount();
    const seen = recorder();
    const watch = createExitWatch(seen.onExit);
    if (watch === null) throw new Error('exit watch unavailable');
    watch.watch([]);
    expect(threadCount()).toBe(before);
    watch.watch([identityOf(await startSleeper())]);
    await pollUntil(() => threadCount() > before, { description: 'the watching thread' });
    watch.close();
    await pollUntil(() => threadCount() <= before, { description: 'the watching thread to end' });
    expect(seen.told).toEqual([]);
  });

  it('is asked to end with the native threads before an exit, and then tells its owner it stopped', async () => {
    await pollUntil(() => threadCount() === 0, { description: "the earlier tests' watch threads to end" });
    const seen = recorder();
    let failures = 0;
    const watch = createExitWatch(seen.onExit, () => {
      failures += 1;
    });
    if (watch === null) throw new Error('exit watch unavailable');
    watch.watch([identityOf(await startSleeper())]);
    await pollUntil(() => threadCount() === 1, { description: 'the watching thread' });
    expect(liveNativeThreads()).toBe(1);
    // Its bindings are defined as it starts: it ends itself, between two polls, when asked.
    await endNativeThreads();
    expect(threadCount()).toBe(0);
    expect(liveNativeThreads()).toBe(0);
    await pollUntil(() => failures === 1, { description: 'the owner told' });
    watch.close();
    expect(seen.told).toEqual([]);
  });

  it("waits between a watcher's ticks for the delay, a root's exit, or an interrupt, and nothing else", async () => {
    const waiter = createTickWaiter();
    try {
      // The watching thread starts with the first wait (a worker loading koffi): CI saw it take
      // ~1.8 s beside the e2e suite, which a timed wait then counted. A first exit, untimed,
      // shows it is up.
      const first = identityOf(await startSleeper());
      process.kill(first.pid, 'SIGKILL');
      expect(await waiter.wait([first], NEVER_MS)).toBe(true);
      const root = identityOf(await startSleeper());
      // Nothing exits: the delay passes.
      expect(await waiter.wait([root], 300)).toBe(false);
      setTimeout(() => process.kill(root.pid, 'SIGKILL'), 200);
      const started = performance.now();
      expect(await waiter.wait([root], NEVER_MS)).toBe(true);
      expect(performance.now() - started).toBeLessThan(TOLD_WITHIN_MS);
      // An exit while no wait runs (a tick): the next wait returns at once.
      const other = identityOf(await startSleeper());
      expect(await waiter.wait([other], 200)).toBe(false);
      process.kill(other.pid, 'SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await waiter.wait([other], NEVER_MS)).toBe(true);
      // Stopping: the wait ends at once, and so does every later one.
      const third = identityOf(await startSleeper());
      setTimeout(() => waiter.interrupt(), 200);
      expect(await waiter.wait([third], NEVER_MS)).toBe(false);
      expect(await waiter.wait([third], NEVER_MS)).toBe(false);
    } finally {
      waiter.close();
    }
  });
});
