/**
 * Limits from the app: the protocol mirrors the engine's bounds (checked equal here, where both
 * are importable), refuses bad or misspelt limits before the host acts, and a New Run / Retry with
 * a limit trips it for real.
 */
import * as E from '@treewarden/engine';
import * as P from '@treewarden/protocol';
import { commandSchema, type HostEvent } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { fixturePath, useProcessTracker, waitFor } from '../../engine/test/helpers/index.js';
import { EVENT_WAIT_MS, expectOk, SLOW_TEST_MS, useTestHost, waitForRun } from './helpers.js';

/** [protocol's copy, engine's original] for every bound the protocol mirrors. */
const MIRRORED_BOUNDS: Record<string, [number, number]> = {
  MIN_MEMORY_LIMIT_BYTES: [P.MIN_MEMORY_LIMIT_BYTES, E.MIN_MEMORY_LIMIT_BYTES],
  MAX_MEMORY_LIMIT_BYTES: [P.MAX_MEMORY_LIMIT_BYTES, E.MAX_MEMORY_LIMIT_BYTES],
  MIN_PROCS_LIMIT: [P.MIN_PROCS_LIMIT, E.MIN_PROCS_LIMIT],
  MAX_PROCS_LIMIT: [P.MAX_PROCS_LIMIT, E.MAX_PROCS_LIMIT],
  MIN_CPU_LIMIT_SECONDS: [P.MIN_CPU_LIMIT_SECONDS, E.MIN_CPU_LIMIT_SECONDS],
  MAX_CPU_LIMIT_SECONDS: [P.MAX_CPU_LIMIT_SECONDS, E.MAX_CPU_LIMIT_SECONDS],
  MIN_IDLE_TIMEOUT_SECONDS: [P.MIN_IDLE_TIMEOUT_SECONDS, E.MIN_IDLE_TIMEOUT_SECONDS],
  MAX_IDLE_TIMEOUT_SECONDS: [P.MAX_IDLE_TIMEOUT_SECONDS, E.MAX_IDLE_TIMEOUT_SECONDS],
};

describe('run limits from the app', () => {
  const tracker = useProcessTracker();
  const startHost = useTestHost();

  it('the protocol mirrors every limit bound of the engine', () => {
    for (const [name, [mirrored, original]] of Object.entries(MIRRORED_BOUNDS)) expect(mirrored, name).toBe(original);
  });

  it('refuses bad, misspelt or non-numeric limits at the boundary, before anything runs', async () => {
    const { host } = startHost();
    const base = { type: 'startRun', command: 'touch', args: ['/nonexistent/never'], timeoutSeconds: 10 };
    for (const limits of [
      { maxProcs: 0 },
      { maxProcs: 2.5 },
      { maxMemoryBytes: 1024 },
      { maxCpuSeconds: -1 },
      { idleTimeoutSeconds: 1e9 },
      { maxMemory: 512 },
      { maxMemoryBytes: '512M' },
    ]) {
      expect(commandSchema.safeParse({ ...base, limits }).success, JSON.stringify(limits)).toBe(false);
      const result = await host.handle({ ...base, limits });
      expect(result.ok, JSON.stringify(limits)).toBe(false);
    }
    expect(commandSchema.safeParse({ ...base, limits: { maxProcs: 8, maxMemoryBytes: 1 << 30 } }).success).toBe(true);
  });

  it(
    'a New Run with max-procs trips as process_limit, and Retry keeps the limit',
    async () => {
      const { host, events } = startHost();
      const ended = (runId: string) =>
        waitFor(
          () =>
            events.find(
              (event): event is Extract<HostEvent, { type: 'runEnded' }> =>
                event.type === 'runEnded' && event.runId === runId,
            ),
          { timeoutMs: EVENT_WAIT_MS * 3, description: `run ${runId} to end` },
        );
      const started = expectOk<{ runId: string }>(
        await host.handle({
          type: 'startRun',
          command: process.execPath,
          args: [fixturePath('spawn-children.mjs'), '--detached', '6', 'run-forever.mjs'],
          timeoutSeconds: 60,
          limits: { maxProcs: 3 },
        }),
      );
      tracker.trackEnvMarker(E.RUN_ID_ENV, started.runId);
      expect((await ended(started.runId)).classification).toBe('process_limit');
      // The details panel's facts: the limits set and the one that tripped, both numbers.
      const view = await waitForRun(
        events,
        started.runId,
        (run) => run.limitTrip !== undefined,
        'the trip in a snapshot',
      );
      expect(view.limits).toEqual({ maxProcs: 3 });
      expect(view.limitTrip?.name).toBe('max-procs');
      expect(view.limitTrip?.observed).toBeGreaterThan(3);
      const retried = expectOk<{ runId: string }>(await host.handle({ type: 'retryRun', runId: started.runId }));
      tracker.trackEnvMarker(E.RUN_ID_ENV, retried.runId);
      expect((await ended(retried.runId)).classification).toBe('process_limit');
    },
    SLOW_TEST_MS,
  );
});
