/** Shared by the host tests: a host on a private state dir, and waiting for its events. */
import { RUN_ID_ENV, statePaths } from '@treewarden/engine';
import { type Command, eventSchema, type HostEvent, type RunView, type Snapshot } from '@treewarden/protocol';
import { afterEach, expect } from 'vitest';
import {
  makeTempDir,
  type ProcessTracker,
  pollUntil,
  recordPastRun,
  removeTempDir,
} from '../../../test-support/index.js';
import { createEnginePort } from '../src/engine/binding.js';
import { createEngineHost, type EngineHost } from '../src/host.js';

/** Events take a poll or two to show a change; node start-up on a loaded 2-core box can take 10+ s. */
export const EVENT_WAIT_MS = 45_000;
/** Tests that start real trees wait several such bounds in a row. */
export const SLOW_TEST_MS = 120_000;

export interface TestHost {
  readonly host: EngineHost;
  readonly events: HostEvent[];
  readonly stateDir: string;
}

export function createTestHost(pollIntervalMs = 250, rootExitEvents?: boolean): TestHost {
  const stateDir = makeTempDir('tw-host-');
  const host = createEngineHost({
    port: createEnginePort({ stateDir }),
    pollIntervalMs,
    ...(rootExitEvents === undefined ? {} : { rootExitEvents }),
  });
  const events: HostEvent[] = [];
  host.onEvent((event) => events.push(event));
  return { host, events, stateDir };
}

/**
 * One host per test, for a describe: after each test, every event the host pushed must have passed the protocol
 * schema; then the host is closed and its state dir removed. Call after useProcessTracker, so the host closes first.
 */
export function useTestHost(): (pollIntervalMs?: number, rootExitEvents?: boolean) => TestHost {
  let current: TestHost | null = null;
  afterEach(async () => {
    if (current !== null) expect(invalidEvents(current.events)).toEqual([]);
    await current?.host.close();
    if (current !== null) removeTempDir(current.stateDir);
    current = null;
  });
  return (pollIntervalMs, rootExitEvents) => {
    current = createTestHost(pollIntervalMs, rootExitEvents);
    return current;
  };
}

export function latestSnapshot(events: readonly HostEvent[]): Snapshot | null {
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const event = events[i];
    if (event?.type === 'snapshot') return event.snapshot;
  }
  return null;
}

export function findRun(snapshot: Snapshot | null, runId: string): RunView | undefined {
  return snapshot?.leases.flatMap((lease) => lease.runs).find((run) => run.id === runId);
}

/** Waits until the latest snapshot shows run `runId` satisfying `predicate`. */
export function waitForRun(
  events: readonly HostEvent[],
  runId: string,
  predicate: (run: RunView) => boolean,
  description: string,
): Promise<RunView> {
  return pollUntil(
    () => {
      const run = findRun(latestSnapshot(events), runId);
      return run !== undefined && predicate(run) ? run : null;
    },
    { deadlineMs: EVENT_WAIT_MS, description },
  );
}

export function expectOk<T>(result: { ok: true; result: unknown } | { ok: false; error: string }): T {
  if (!result.ok) throw new Error(`command failed: ${result.error}`);
  return result.result as T;
}

/**
 * Starts a run through the host's command (it must succeed) and has the tracker end whatever
 * carries its cookie after the test. Returns the command's result.
 */
export async function startTrackedRun(
  host: EngineHost,
  tracker: ProcessTracker,
  run: Omit<Extract<Command, { type: 'startRun' }>, 'type'>,
): Promise<{ runId: string; leaseId: string }> {
  const started = expectOk<{ runId: string; leaseId: string }>(await host.handle({ type: 'startRun', ...run }));
  tracker.trackEnvMarker(RUN_ID_ENV, started.runId);
  return started;
}

/** Writes a run's start and end to the ledger of `stateDir`: the run is over on record. */
/** A run this host's ledger says is over, as an earlier session would have left it. */
export function recordEndedRun(stateDir: string, runId: string): void {
  recordPastRun(statePaths(stateDir), runId, { command: 'node' });
}

/** Every event the host pushed must pass the protocol schema the UI validates with. */
export function invalidEvents(events: readonly HostEvent[]): string[] {
  return events.flatMap((event) => {
    const parsed = eventSchema.safeParse(event);
    return parsed.success ? [] : [`${event.type}: ${parsed.error.message}`];
  });
}
