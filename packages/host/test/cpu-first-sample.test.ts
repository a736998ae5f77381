/**
 * CPU % is a difference of two samples: the first time the host sees a process it has nothing to
 * diff, so the CPU is unknown (absent), never a made-up 0 that would start every curve at 0 %.
 */
import { spawn } from 'node:child_process';
import { type ProcessEntry, readProcEntry } from '@treewarden/engine';
import type { HostEvent, RunView } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { fixturePath, pollUntil, useProcessTracker } from '../../../test-support/index.js';
import { createCpuTracker } from '../src/snapshot/process-node.js';
import { EVENT_WAIT_MS, expectOk, findRun, SLOW_TEST_MS, startTrackedRun, useTestHost } from './helpers.js';

function tableOf(entry: ProcessEntry): Map<number, ProcessEntry> {
  return new Map([[entry.pid, entry]]);
}

/** The run as each snapshot showed it, in order, from the first that shows its root. */
function viewsWithRoot(events: readonly HostEvent[], runId: string): RunView[] {
  return events.flatMap((event) => {
    if (event.type !== 'snapshot') return [];
    const run = findRun(event.snapshot, runId);
    return run?.processes.some((node) => node.pid === run.root?.pid) ? [run] : [];
  });
}

describe('CPU of a process first seen', () => {
  const tracker = useProcessTracker();
  const startHost = useTestHost();

  it('the tracker reports no percent for the first sample of a real process, a number for the second', async () => {
    const child = spawn(process.execPath, [fixturePath('cpu-spin.mjs')], { stdio: 'ignore' });
    tracker.trackChild(child);
    const pid = child.pid ?? 0;
    const cpu = createCpuTracker();
    const first = await pollUntil(() => readProcEntry(pid), { deadlineMs: EVENT_WAIT_MS, description: 'the spinner' });
    const key = `${first.pid}:${first.startTime}`;
    expect(cpu.sample(tableOf(first), first.startedAtMs + 1).has(key)).toBe(false);
    // The second read comes once the spinner used measurable CPU time (deadline-bounded, no sleep).
    const second = await pollUntil(
      () => {
        const entry = readProcEntry(pid);
        return entry !== null && entry.cpuTimeMs > first.cpuTimeMs ? entry : null;
      },
      { deadlineMs: EVENT_WAIT_MS, description: 'the spinner to use CPU' },
    );
    const percents = cpu.sample(tableOf(second), first.startedAtMs + 1 + (second.cpuTimeMs - first.cpuTimeMs) * 2);
    expect(percents.get(key)).toBeGreaterThan(0);
  });

  it(
    'the host shows a run root without CPU in its first snapshot and with CPU in a later one',
    async () => {
      const { host, events } = startHost();
      const started = await startTrackedRun(host, tracker, {
        command: process.execPath,
        args: [fixturePath('cpu-spin.mjs')],
        timeoutSeconds: 120,
      });
      const views = await pollUntil(
        () => {
          const seen = viewsWithRoot(events, started.runId);
          return seen.length >= 2 ? seen : null;
        },
        { deadlineMs: EVENT_WAIT_MS, description: 'two snapshots showing the root' },
      );
      const rootOf = (view: RunView) => view.processes.find((node) => node.pid === view.root?.pid);
      expect(rootOf(views[0] as RunView)?.cpuPercent).toBeUndefined();
      expect(rootOf(views[1] as RunView)?.cpuPercent).toBeTypeOf('number');
      const root = (views[0] as RunView).root;
      if (root !== null) expectOk(await host.handle({ type: 'killTree', target: root }));
    },
    SLOW_TEST_MS,
  );
});
