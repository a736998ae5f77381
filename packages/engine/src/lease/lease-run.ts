/**
 * The holder's view of a run its guardian hosts: the same `Run` interface the supervisor returns,
 * fed by the guardian's messages, so callers (the CLI, harnesses) use a leased run exactly like a
 * local one.
 */
import type { Killer, Run, RunEvent, RunOutcome, RunPhase } from '../run/types.js';
import type { ProcessIdentity } from '../table/types.js';
import type { GuardianMessage } from './protocol.js';

export interface LeaseRun extends Run {
  /** The run's private directory (its default cwd), once the guardian created it. */
  readonly runDir: string | null;
  /** Feeds one guardian message about this run. */
  receive(message: GuardianMessage): void;
  /** Ends the proxy when the guardian went away without reporting an outcome. */
  abandon(error: string): void;
  /**
   * The guardian died: supervision moves to a local run built by `adopt` from the root's identity
   * and the time it was seen spawned. Events, phase, cancel and outcome follow the local run from
   * now on. Null (nothing taken over) when the run had ended or its root was never reported.
   */
  takeOver(adopt: (root: ProcessIdentity, spawnedAtMs: number) => Run): Run | null;
}

export function createLeaseRun(id: string, leaseId: string, cancel: (reason?: string, by?: Killer) => void): LeaseRun {
  let identity: ProcessIdentity | null = null;
  let spawnedAtMs = 0;
  let local: Run | null = null;
  let phase: RunPhase = 'starting';
  let runDir: string | null = null;
  let settle: (outcome: RunOutcome) => void = () => {};
  const startedAtMs = Date.now();
  const outcome = new Promise<RunOutcome>((resolve) => {
    settle = resolve;
  });
  const listeners = new Set<(event: RunEvent) => void>();
  const emit = (event: RunEvent) => {
    for (const listener of listeners) listener(event);
  };
  let settled = false;
  const spawned = (spawnedIdentity: ProcessIdentity) => {
    if (identity !== null) return;
    identity = spawnedIdentity;
    spawnedAtMs = Date.now();
    emit({ type: 'spawned', identity });
  };
  const finish = (result: RunOutcome) => {
    if (settled) return;
    settled = true;
    phase = 'ended';
    settle(result);
  };
  const failed = (error: string): RunOutcome => ({
    runId: id,
    classification: 'launch_failure',
    exitCode: null,
    signal: null,
    pid: identity?.pid ?? null,
    startTime: identity?.startTime ?? null,
    durationMs: Date.now() - startedAtMs,
    killAttempts: 0,
    survivors: [],
    leftovers: [],
    stdoutTail: '',
    stderrTail: '',
    error,
  });

  return {
    id,
    leaseId,
    get identity() {
      return identity;
    },
    get phase() {
      return phase;
    },
    get runDir() {
      return runDir;
    },
    outcome,
    cancel: (reason, by) => {
      if (settled) return;
      if (local !== null) local.cancel(reason, by);
      else cancel(reason, by);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    receive(message) {
      if (message.t === 'started') {
        runDir = message.runDir;
        if (!settled) phase = message.phase;
        // The supervisor may have emitted 'spawned' before the guardian subscribed: emit it here
        // once; a forwarded 'spawned' for the same run is then not repeated.
        if (message.pid !== null && message.startTime !== null)
          spawned({ pid: message.pid, startTime: message.startTime });
      } else if (message.t === 'event') {
        if (message.event.type === 'phase' && !settled) phase = message.event.phase;
        if (message.event.type === 'spawned') spawned(message.event.identity);
        else emit(message.event);
      } else if (message.t === 'ended') finish(message.outcome);
      else if (message.t === 'failed') finish(failed(message.error));
    },
    abandon: (error) => finish({ ...failed(error), classification: 'error' }),
    takeOver(adopt) {
      if (settled || identity === null || local !== null) return null;
      const run = adopt(identity, spawnedAtMs);
      local = run;
      phase = run.phase;
      run.subscribe((event) => {
        if (event.type === 'phase' && !settled) phase = event.phase;
        if (event.type !== 'spawned') emit(event);
      });
      void run.outcome.then(finish);
      return run;
    },
  };
}
