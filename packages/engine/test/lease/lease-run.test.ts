/** The holder's proxy of a guardian-hosted run, fed message by message. */
import { describe, expect, it } from 'vitest';
import { createLeaseRun } from '../../src/lease/lease-run.js';
import type { RunEvent, RunOutcome } from '../../src/run/types.js';

const outcome: RunOutcome = {
  runId: 'r',
  classification: 'ok',
  exitCode: 0,
  signal: null,
  pid: 5,
  startTime: '9',
  durationMs: 1,
  killAttempts: 0,
  survivors: [],
  leftovers: [],
  stdoutTail: '',
  stderrTail: '',
};

describe('lease run proxy', () => {
  it('emits spawned once, whether the guardian reports it in "started", as an event, or both', () => {
    const run = createLeaseRun('r', 'L', () => {});
    const events: RunEvent[] = [];
    run.subscribe((event) => events.push(event));
    run.receive({ t: 'started', runId: 'r', runDir: '/d', phase: 'running', pid: 5, startTime: '9' });
    run.receive({ t: 'event', runId: 'r', event: { type: 'spawned', identity: { pid: 5, startTime: '9' } } });
    expect(events).toEqual([{ type: 'spawned', identity: { pid: 5, startTime: '9' } }]);
    expect(run).toMatchObject({ runDir: '/d', phase: 'running', identity: { pid: 5, startTime: '9' } });
  });

  it('settles once with the reported outcome, even after an "ended" phase event', async () => {
    const cancels: string[] = [];
    const run = createLeaseRun('r', 'L', (reason) => cancels.push(reason ?? ''));
    run.receive({ t: 'event', runId: 'r', event: { type: 'phase', phase: 'ended' } });
    run.cancel('first');
    run.receive({ t: 'ended', runId: 'r', outcome });
    run.receive({ t: 'failed', runId: 'r', error: 'late' });
    expect(await run.outcome).toBe(outcome);
    run.cancel('after the end');
    expect(cancels).toEqual(['first']);
    expect(run.phase).toBe('ended');
  });

  it('reports a refused start as launch_failure and a vanished guardian as error', async () => {
    const refused = createLeaseRun('a', 'L', () => {});
    refused.receive({ t: 'failed', runId: 'a', error: 'timeout 0 is below MIN_TIMEOUT_SECONDS (1)' });
    expect(await refused.outcome).toMatchObject({ classification: 'launch_failure', error: /MIN_TIMEOUT/ });
    const abandoned = createLeaseRun('b', 'L', () => {});
    abandoned.abandon('lease guardian exited (code 1) before the run ended');
    expect(await abandoned.outcome).toMatchObject({ classification: 'error', runId: 'b' });
  });
});
