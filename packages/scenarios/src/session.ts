/**
 * The state one scenario execution shares between its parts: the sandbox, the narration, the
 * watchdog, the runs it started, and the abort that bounds and interruptions trigger.
 */
import { pollUntil, type Run, type RunSpec } from '@treewarden/engine';
import type { ScenarioStep } from './result.js';
import type { Sandbox } from './sandbox.js';
import type { FixtureReport, ScenarioDefinition } from './types.js';
import { type ScenarioWatch, startWatch } from './watch.js';

/** Report polling period while waiting for a fixture to say it is ready. */
export const REPORT_POLL_MS = 50;

export interface Session {
  readonly definition: ScenarioDefinition;
  readonly sandbox: Sandbox;
  readonly watch: ScenarioWatch;
  readonly abort: AbortController;
  readonly steps: ScenarioStep[];
  readonly runs: Run[];
  boundsExceeded: string | null;
  interrupted: boolean;
  step(text: string): void;
  /** Records a step that happened earlier (e.g. from a kill's timeline), in its own time. */
  stepAt(atMs: number, text: string): void;
  /** Starts a run through the configured launcher and keeps it for interruption. */
  startRun(spec: RunSpec): Run;
  /** Ends the scenario early: bounds exceeded or interrupted. Cancels every run it started. */
  trip(reason: string, kind: 'bounds' | 'interrupt'): void;
  waitForReports(role: string, count: number, timeoutMs: number): Promise<FixtureReport[] | null>;
}

export interface SessionOptions {
  readonly definition: ScenarioDefinition;
  readonly sandbox: Sandbox;
  readonly launch: (spec: RunSpec) => Run;
  readonly onStep?: (step: ScenarioStep) => void;
  readonly onRun?: (run: Run) => void;
}

export function createSession(options: SessionOptions): Session {
  const { definition, sandbox } = options;
  const abort = new AbortController();
  const steps: ScenarioStep[] = [];
  const stepAt = (atMs: number, text: string): void => {
    const entry = { atMs: Math.round(atMs), text };
    steps.push(entry);
    options.onStep?.(entry);
  };
  const step = (text: string): void => stepAt(Date.now() - sandbox.startedAtMs, text);
  const session: Session = {
    definition,
    sandbox,
    abort,
    steps,
    runs: [],
    boundsExceeded: null,
    interrupted: false,
    step,
    stepAt,
    watch: startWatch({
      runId: sandbox.runId,
      dir: sandbox.dir,
      maxProcesses: definition.bounds.maxProcesses,
      startedAtMs: sandbox.startedAtMs,
      step,
      onExceeded: (reason) => session.trip(reason, 'bounds'),
    }),
    startRun(spec) {
      const run = options.launch(spec);
      session.runs.push(run);
      options.onRun?.(run);
      return run;
    },
    trip(reason, kind) {
      if (abort.signal.aborted) return;
      if (kind === 'bounds') session.boundsExceeded = reason;
      else session.interrupted = true;
      step(
        `${kind === 'bounds' ? 'BOUND EXCEEDED' : 'interrupted'}: ${reason}; ending everything the scenario started`,
      );
      for (const run of session.runs) run.cancel(reason);
      abort.abort(new Error(reason));
    },
    waitForReports: (role, count, timeoutMs) => waitForReports(session, role, count, timeoutMs),
  };
  return session;
}

async function waitForReports(
  session: Session,
  role: string,
  count: number,
  timeoutMs: number,
): Promise<FixtureReport[] | null> {
  if (session.abort.signal.aborted) return null;
  return pollUntil(
    () => {
      const matching = session.sandbox.readReports().filter((report) => report.role === role);
      return matching.length >= count ? matching : null;
    },
    { deadlineMs: timeoutMs, intervalMs: REPORT_POLL_MS, signal: session.abort.signal },
  );
}
