/**
 * `treewarden scenario list [--json]` and `treewarden scenario run NAME [--naive] [--json]`: the
 * runaway-worker demos (packages/scenarios). `run` narrates each step with its time,
 * then compares the expected and the actual outcome; with `--json`, stdout carries exactly one
 * JSON object. Ctrl-C (or SIGTERM/SIGHUP) ends everything the scenario started before exiting;
 * with `--lease NAME` the runs are hosted by a lease guardian, which ends them even when this
 * CLI is SIGKILLed. Exit: 0 as expected, 1 differs, 2 usage, 77 unavailable here, 128+n signal.
 */
import { parseArgs } from 'node:util';
import { type Lease, openLease, type RunSpec } from '@treewarden/engine';
import {
  findScenario,
  formatScenarioIntro,
  formatScenarioList,
  formatScenarioResult,
  formatStep,
  listScenarios,
  type ScenarioExecution,
  type ScenarioResult,
  startScenario,
  summarizeScenario,
  sweepScenario,
  UnknownScenarioError,
  unavailableReason,
} from '@treewarden/scenarios';
import { writeOut } from '../args.js';
import { EXIT_FAILURE, EXIT_OK, SIGNAL_EXIT_BASE } from '../exit-codes.js';
import { writeText } from '../terminal-text.js';
import { type CliCommand, UsageError } from './command.js';

const USAGE = 'treewarden scenario list [--json] | treewarden scenario run NAME [--naive] [--json] [--lease NAME]';
const OPTIONS = { json: { type: 'boolean' }, naive: { type: 'boolean' }, lease: { type: 'string' } } as const;
/** The scenario could not run here (e.g. no privilege for a pid namespace): visible, not a pass. */
export const EXIT_SKIPPED = 77;
const INTERRUPT_SIGNALS = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 } as const;
type InterruptSignal = keyof typeof INTERRUPT_SIGNALS;

async function listCommand(json: boolean): Promise<number> {
  const scenarios = listScenarios();
  await writeOut(process.stdout, json ? `${JSON.stringify({ scenarios })}\n` : `${formatScenarioList(scenarios)}\n`);
  return EXIT_OK;
}

function exitCodeFor(result: ScenarioResult): number {
  if (!result.available) return EXIT_SKIPPED;
  return result.passed ? EXIT_OK : EXIT_FAILURE;
}

/**
 * Installs handlers that interrupt the scenario (the engine ends all it started) instead of
 * dying with its processes alive. Installed before the scenario starts, so no signal falls in a
 * gap; a signal that arrives before `attach` is applied as soon as the execution exists.
 */
function interruptOn(): {
  attach: (execution: ScenarioExecution) => void;
  received: () => InterruptSignal | null;
  remove: () => void;
} {
  let received: InterruptSignal | null = null;
  let execution: ScenarioExecution | null = null;
  const interrupt = (target: ScenarioExecution, signal: InterruptSignal) => {
    process.stderr.write(`\n${signal}: ending everything scenario ${target.name} started…\n`);
    void target.interrupt(`${signal} received`).catch(async (error: Error) => {
      // The scenario did not wind down in time: sweep its cookie and directory, then leave.
      process.stderr.write(`${error.message}; sweeping what is left\n`);
      await sweepScenario(target.runId, target.dir);
      process.exit(EXIT_FAILURE);
    });
  };
  const handlers = (Object.keys(INTERRUPT_SIGNALS) as InterruptSignal[]).map((signal) => {
    const handler = () => {
      if (received !== null) return; // the first interrupt is already winding the scenario down
      received = signal;
      if (execution !== null) interrupt(execution, signal);
    };
    process.on(signal, handler);
    return { signal, handler };
  });
  return {
    attach: (target) => {
      execution = target;
      if (received !== null) interrupt(target, received);
    },
    received: () => received,
    remove: () => {
      for (const { signal, handler } of handlers) process.off(signal, handler);
    },
  };
}

interface RunFlags {
  readonly naive: boolean;
  readonly json: boolean;
  /** Host the scenario's runs under this lease: its guardian ends them even if this CLI is SIGKILLed. */
  readonly lease: string | undefined;
}

async function runCommand(name: string, flags: RunFlags): Promise<number> {
  const { naive, json } = flags;
  let summary: ReturnType<typeof summarizeScenario>;
  try {
    const definition = findScenario(name);
    summary = summarizeScenario(definition, unavailableReason(definition));
  } catch (error) {
    if (error instanceof UnknownScenarioError) throw new UsageError(error.message);
    throw error;
  }
  const interrupt = interruptOn();
  let lease: Lease | null = null;
  let result: ScenarioResult;
  try {
    if (!json) await writeText(process.stdout, formatScenarioIntro(summary, naive));
    if (flags.lease !== undefined) lease = await openLease({ name: flags.lease, holder: 'cli scenario' });
    const leased = lease;
    const execution = startScenario(name, {
      naive,
      ...(leased === null ? {} : { startRun: (spec: RunSpec) => leased.startRun(spec) }),
      ...(json ? {} : { onStep: (step) => process.stdout.write(`${formatStep(step)}\n`) }),
    });
    interrupt.attach(execution);
    result = await execution.result;
  } finally {
    interrupt.remove();
    await lease?.release();
  }
  await writeOut(process.stdout, json ? `${JSON.stringify(result)}\n` : `${formatScenarioResult(result)}\n`);
  const signal = interrupt.received();
  return signal !== null ? SIGNAL_EXIT_BASE + INTERRUPT_SIGNALS[signal] : exitCodeFor(result);
}

export const scenarioCommand: CliCommand = {
  summary: 'list or run the runaway-worker demo scenarios (--naive shows what a naive tool leaves)',
  usage: USAGE,
  async main(argv) {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    });
    const [action, name, ...extra] = positionals;
    const json = values.json === true;
    if (action === 'list' && name === undefined) return listCommand(json);
    if (action === 'run' && name !== undefined && extra.length === 0) {
      return runCommand(name, { naive: values.naive === true, json, lease: values.lease });
    }
    throw new UsageError(
      action === 'run' ? 'run needs exactly one scenario NAME' : `unknown action ${JSON.stringify(action ?? '')}`,
    );
  },
};
