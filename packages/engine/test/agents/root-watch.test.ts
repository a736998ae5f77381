/**
 * The look at live sessions' roots between observer ticks, on real processes: a live root is not
 * "exited"; a killed (reaped, or still a zombie) root is; a pid whose start time differs (recycled)
 * is; and the wait between ticks returns early on such an exit, or when told to stop.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  identityOf,
  isRunning,
  pollUntil,
  startZombieToBe,
  useProcessTracker,
} from '../../../../test-support/index.js';
import { anyRootExited, createRootWatch, waitForTickOrRootExit } from '../../src/agents/sessions/root-watch.js';

const tracker = useProcessTracker();
/** Longer than any test's timeout: a wait that returns at all returned early. */
const NEVER_MS = 600_000;

function startSleeper(): number {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  tracker.trackChild(child);
  return child.pid as number;
}

describe.skipIf(process.platform !== 'linux')('root watch', () => {
  it('tells a live root from an exited or recycled one', async () => {
    const pid = startSleeper();
    await pollUntil(() => isRunning(pid), { description: 'the sleeper' });
    const root = identityOf(pid);
    expect(anyRootExited([root])).toBe(false);
    expect(anyRootExited([])).toBe(false);
    expect(anyRootExited([{ ...root, startTime: `${root.startTime}1` }])).toBe(true);
    process.kill(pid, 'SIGKILL');
    await pollUntil(() => anyRootExited([root]), { description: 'the killed root to count as exited' });
  });

  it('returns early from the wait between ticks once a root exits, and when stopping', async () => {
    const pid = startSleeper();
    await pollUntil(() => isRunning(pid), { description: 'the sleeper' });
    const roots = [identityOf(pid)];
    setTimeout(() => process.kill(pid, 'SIGKILL'), 300);
    expect(await waitForTickOrRootExit(() => roots, NEVER_MS)).toBe(true);
    let stopping = false;
    setTimeout(() => {
      stopping = true;
    }, 300);
    const other = startSleeper();
    await pollUntil(() => isRunning(other), { description: 'the second sleeper' });
    expect(
      await waitForTickOrRootExit(
        () => [identityOf(other)],
        NEVER_MS,
        () => stopping,
      ),
    ).toBe(false);
    // Nothing exits and nobody stops: the delay passes.
    expect(await waitForTickOrRootExit(() => [identityOf(other)], 250)).toBe(false);
  });

  it('holds each root once: a live one stays live, a zombie or a reaped one exits, a dropped one is let go', async () => {
    // The zombie's parent never reaps it; the second sleeper is reaped by us.
    const zombiePid = await startZombieToBe(tracker);
    const reaped = startSleeper();
    await pollUntil(() => isRunning(reaped), { description: 'the reaped sleeper' });
    const roots = [identityOf(zombiePid), identityOf(reaped)];
    const openFds = () => readdirSync('/proc/self/fd').length;
    const before = openFds();
    const watch = createRootWatch();
    try {
      expect(watch.exited(roots)).toEqual([]);
      expect(openFds()).toBe(before + 2);
      expect(watch.exited(roots)).toEqual([]);
      expect(openFds()).toBe(before + 2);
      expect(watch.exited([{ ...roots[1], startTime: `${roots[1]?.startTime}1` } as (typeof roots)[0]])).toHaveLength(
        1,
      );
      expect(openFds()).toBe(before);
      expect(watch.exited(roots)).toEqual([]);
      process.kill(zombiePid, 'SIGKILL');
      process.kill(reaped, 'SIGKILL');
      await pollUntil(() => watch.exited(roots).length === 2, { description: 'both roots to count as exited' });
      expect(watch.exited(roots)).toEqual(roots);
    } finally {
      watch.close();
    }
    expect(openFds()).toBe(before);
  });
});
