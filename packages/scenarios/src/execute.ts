/**
 * Runs one scenario end to end: sandbox, watchdog and time bound, the worker (supervised, naive
 * or a custom driver), the survivor census, scenario checks, the engine's cleanup, the verdict.
 * `startScenario` returns at once with the run id and an `interrupt()` that the CLI's Ctrl-C
 * handler and the app's window-close call; `runScenario` awaits the result.
 */
import { startRun as engineStartRun, RUN_ID_ENV, type Run, type RunSpec, withDeadline } from '@treewarden/engine';
import { findScenario } from './catalog.js';
import { concludeScenario } from './conclude.js';
import { runNaive } from './naive.js';
import { pacedDefinition, type ScenarioPace } from './pace.js';
import { type ScenarioResult, type ScenarioStep, skippedResult } from './result.js';
import { createSandbox } from './sandbox.js';
import { createSession, type Session } from './session.js';
import { outcomeFacts, runSupervised } from './supervised.js';
import type { ScenarioDefinition, ScenarioMode, ScenarioOutcomeFacts } from './types.js';

/** Bound on waiting for a scenario to wind down after an interrupt. */
export const INTERRUPT_WAIT_MS = 30_000;

export interface ScenarioRunOptions {
  readonly naive?: boolean;
  /** 'slow' stretches the timeouts of scenarios that end by timeout, for a person to watch. */
  readonly pace?: ScenarioPace;
  /** Starts runs; default the engine's `startRun`. The app passes its lease's `startRun`. */
  readonly startRun?: (spec: RunSpec) => Run;
  /** Live narration, step by step. */
  readonly onStep?: (step: ScenarioStep) => void;
  /** Every run the scenario starts, as it starts (the app shows its live tree). */
  readonly onRun?: (run: Run) => void;
}

export interface ScenarioExecution {
  readonly name: string;
  readonly mode: ScenarioMode;
  /** The run cookie of everything this scenario starts; '' when the scenario is unavailable. */
  readonly runId: string;
  readonly dir: string;
  readonly result: Promise<ScenarioResult>;
  /** Ends everything the scenario started (engine kill), then resolves with the (failed) result. */
  interrupt(reason?: string): Promise<ScenarioResult>;
}

async function runWorker(session: Session): Promise<ScenarioOutcomeFacts> {
  const { definition, sandbox } = session;
  if (definition.drive !== undefined) {
    return definition.drive(sandbox, {
      step: session.step,
      startRun: (spec) => session.startRun(spec),
      waitForReports: (role, count, timeoutMs) => session.waitForReports(role, count, timeoutMs),
      signal: session.abort.signal,
    });
  }
  if (definition.worker === undefined) throw new Error(`scenario ${definition.name} has neither worker nor drive`);
  const plan = definition.worker(sandbox);
  if (sandbox.mode === 'naive' && definition.naive !== 'in-worker') return runNaive(session, plan);
  return outcomeFacts(await runSupervised(session, plan));
}

async function execute(session: Session): Promise<ScenarioResult> {
  const { definition, sandbox } = session;
  session.step(`${definition.title} — ${sandbox.mode === 'naive' ? 'naive approach' : 'under Treewarden'}`);
  session.step(`private dir ${sandbox.dir}; every process carries ${RUN_ID_ENV}=${sandbox.runId}`);
  const timer = setTimeout(
    () => session.trip(`time bound of ${definition.bounds.maxMs} ms passed`, 'bounds'),
    definition.bounds.maxMs,
  );
  let outcome: ScenarioOutcomeFacts | null = null;
  let failure: string | null = null;
  try {
    outcome = await runWorker(session);
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
    session.step(`scenario failed: ${failure}`);
  } finally {
    clearTimeout(timer);
  }
  return concludeScenario(session, outcome, failure);
}

/** Why `definition` cannot run here, or null. */
export function unavailableReason(definition: ScenarioDefinition): string | null {
  if (process.platform !== 'linux') return 'scenarios use real Linux process trees (/proc); this is not Linux';
  return definition.unavailableReason?.() ?? null;
}

export function startScenario(name: string, options: ScenarioRunOptions = {}): ScenarioExecution {
  const definition = pacedDefinition(findScenario(name), options.pace);
  const mode: ScenarioMode = options.naive === true ? 'naive' : 'treewarden';
  const reason = unavailableReason(definition);
  if (reason !== null) {
    const result = Promise.resolve(skippedResult(definition, mode, reason));
    return { name, mode, runId: '', dir: '', result, interrupt: () => result };
  }
  const sandbox = createSandbox(definition, mode);
  const session = createSession({
    definition,
    sandbox,
    launch: options.startRun ?? ((spec) => engineStartRun(spec)),
    ...(options.onStep === undefined ? {} : { onStep: options.onStep }),
    ...(options.onRun === undefined ? {} : { onRun: options.onRun }),
  });
  const result = execute(session);
  return {
    name,
    mode,
    runId: sandbox.runId,
    dir: sandbox.dir,
    result,
    async interrupt(why = 'interrupted') {
      session.trip(why, 'interrupt');
      return withDeadline(result, INTERRUPT_WAIT_MS, `scenario ${name} winding down`);
    },
  };
}

/** Runs a scenario to its end; rejects (UnknownScenarioError) for a name not in the catalog. */
export async function runScenario(name: string, options: ScenarioRunOptions = {}): Promise<ScenarioResult> {
  return startScenario(name, options).result;
}
