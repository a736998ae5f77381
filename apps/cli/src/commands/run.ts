/**
 * `treewarden run [--timeout S] [--grace S] [--max-memory SIZE] [--max-procs N] [--max-cpu S]
 * [--idle-timeout S] [--cgroup] [--cwd DIR] [--json] [--keep-descendants] -- CMD [ARGS…]`
 * Runs CMD in its own session under the engine's run supervisor and exits with a status that
 * says how it ended. SIGINT/SIGTERM/SIGHUP to the CLI cancel the run with the tree kill.
 */
import { constants } from 'node:os';
import { parseArgs } from 'node:util';
import {
  encodeArgv,
  type Lease,
  LIMIT_CLASSIFICATIONS,
  openLease,
  type Run,
  type RunOutcome,
  type RunSpec,
  RunSpecError,
  readArgvTailBytes,
  readStartEnvironBlock,
  readStartEnvironment,
  validateRunSpec,
} from '@treewarden/engine';
import { parseSeconds, writeOut } from '../args.js';
import {
  EXIT_KILL_FAILED,
  EXIT_LAUNCH_FAILURE,
  EXIT_MISSING_BINARY,
  EXIT_TIMEOUT,
  SIGNAL_EXIT_BASE,
} from '../exit-codes.js';
import { parseLimitFlags } from '../limit-flags.js';
import { writeText } from '../terminal-text.js';
import { type CliCommand, UsageError } from './command.js';

const USAGE =
  'treewarden run [--timeout S] [--grace S] [--max-memory SIZE] [--max-procs N] [--max-cpu S] [--idle-timeout S] ' +
  '[--cgroup] [--cwd DIR] [--json] [--keep-descendants] [--lease NAME] -- CMD [ARGS…]';
const OPTIONS = {
  timeout: { type: 'string' },
  grace: { type: 'string' },
  'max-memory': { type: 'string' },
  'max-procs': { type: 'string' },
  'max-cpu': { type: 'string' },
  'idle-timeout': { type: 'string' },
  cgroup: { type: 'boolean' },
  cwd: { type: 'string' },
  json: { type: 'boolean' },
  'keep-descendants': { type: 'boolean' },
  lease: { type: 'string' },
} as const;
/** The lease a run joins when --lease is not given. */
const DEFAULT_LEASE_NAME = 'cli';
const VALUE_OPTIONS = new Set([
  '--timeout',
  '--grace',
  '--cwd',
  '--lease',
  '--max-memory',
  '--max-procs',
  '--max-cpu',
  '--idle-timeout',
]);
/** A limit that trips ends the run like its timeout does, with the same exit status. */
const LIMIT_CLASSIFICATION_SET: ReadonlySet<string> = new Set(Object.values(LIMIT_CLASSIFICATIONS));
/** Signals that cancel the run; the CLI then exits 128 + n, as if it had died by them. */
const CANCEL_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Our flags come first; the command starts after `--`, or at the first argument that is not ours. */
function splitCommand(argv: readonly string[]): { flags: string[]; command: string[] } {
  const dash = argv.indexOf('--');
  if (dash >= 0) return { flags: argv.slice(0, dash), command: argv.slice(dash + 1) };
  let index = 0;
  while (index < argv.length && (argv[index] ?? '').startsWith('-')) {
    const arg = argv[index] ?? '';
    index += VALUE_OPTIONS.has(arg) ? 2 : 1;
  }
  return { flags: argv.slice(0, index), command: argv.slice(index) };
}

/**
 * The command as it must run: Node gave us each argument decoded as UTF-8 (U+FFFD for bytes that
 * are not), so where the kernel's copy differs the run carries the real bytes (argvBase64).
 */
function commandOf(command: readonly string[]): Pick<RunSpec, 'command' | 'args' | 'argvBase64'> {
  const bytes = readArgvTailBytes(command);
  if (bytes !== null) return encodeArgv(bytes);
  const [program = '', ...args] = command;
  return { command: program, args };
}

export function signalExitCode(signal: string | null): number | null {
  if (signal === null) return null;
  const number = constants.signals[signal as NodeJS.Signals];
  return number === undefined ? null : SIGNAL_EXIT_BASE + number;
}

/** ok/error and their refinements exit with the worker's own status; the rest have fixed codes. */
export function exitCodeFor(outcome: RunOutcome): number {
  if (LIMIT_CLASSIFICATION_SET.has(outcome.classification)) return EXIT_TIMEOUT;
  switch (outcome.classification) {
    case 'timeout':
      return EXIT_TIMEOUT;
    case 'kill_failed':
      return EXIT_KILL_FAILED;
    case 'launch_failure':
      return EXIT_LAUNCH_FAILURE;
    case 'missing_binary':
      return EXIT_MISSING_BINARY;
    default:
      return outcome.exitCode ?? signalExitCode(outcome.signal) ?? 1;
  }
}

/** The one JSON object `--json` prints. */
export function toJson(outcome: RunOutcome): Record<string, unknown> {
  return {
    classification: outcome.classification,
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    pid: outcome.pid,
    startTime: outcome.startTime,
    durationMs: outcome.durationMs,
    killAttempts: outcome.killAttempts,
    survivors: outcome.survivors,
    leftovers: outcome.leftovers,
    ...(outcome.kept === undefined ? {} : { kept: outcome.kept }),
    stdoutTail: outcome.stdoutTail,
    stderrTail: outcome.stderrTail,
    runId: outcome.runId,
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
    ...(outcome.limit === undefined ? {} : { limit: outcome.limit }),
    ...(outcome.limitEnforcement === undefined ? {} : { limitEnforcement: outcome.limitEnforcement }),
    ...(outcome.limitMethods === undefined ? {} : { limitMethods: outcome.limitMethods }),
    ...(outcome.cgroup === undefined ? {} : { cgroup: outcome.cgroup }),
  };
}

function summarize(outcome: RunOutcome): string {
  const how = outcome.signal !== null ? `signal ${outcome.signal}` : `exit ${outcome.exitCode ?? '-'}`;
  const parts = [`treewarden: ${outcome.classification} (${how}), pid ${outcome.pid ?? '-'}`];
  parts.push(`${(outcome.durationMs / 1000).toFixed(2)} s`);
  if (outcome.leftovers.length > 0) parts.push(`ended ${outcome.leftovers.length} leftover(s)`);
  if ((outcome.kept?.length ?? 0) > 0) parts.push(`kept ${outcome.kept?.length} descendant(s)`);
  if (outcome.survivors.length > 0) parts.push(`survivors ${outcome.survivors.map((s) => s.pid).join(' ')}`);
  const error = outcome.error === undefined ? '' : `: ${outcome.error}`;
  return `${parts.join(', ')}; run ${outcome.runId}${error}\n`;
}

/** Cancels the run on the first terminal signal; returns the signal that did, if any. */
function cancelOnSignals(run: Run): { received(): NodeJS.Signals | null; dispose(): void } {
  let received: NodeJS.Signals | null = null;
  const handler = (signal: NodeJS.Signals) => {
    received ??= signal;
    run.cancel(`treewarden received ${signal}`);
  };
  for (const signal of CANCEL_SIGNALS) process.on(signal, handler);
  return {
    received: () => received,
    dispose: () => {
      for (const signal of CANCEL_SIGNALS) process.off(signal, handler);
    },
  };
}

async function main(argv: readonly string[]): Promise<number> {
  const { flags, command } = splitCommand(argv);
  const { values } = parseArgs({ args: flags, options: OPTIONS, strict: true, allowPositionals: false });
  if (command.length === 0) throw new UsageError('run: no command given');
  const json = values.json === true;
  const spec: RunSpec = {
    ...commandOf(command),
    cwd: values.cwd,
    timeoutSeconds: parseSeconds('timeout', values.timeout),
    graceSeconds: parseSeconds('grace', values.grace),
    keepDescendants: values['keep-descendants'] === true,
    output: json ? 'capture' : 'tee',
    ...parseLimitFlags(values),
  };
  // Bounds are checked before anything launches, the guardian included.
  try {
    validateRunSpec(spec);
  } catch (error) {
    if (error instanceof RunSpecError) throw new UsageError(error.message);
    throw error;
  }
  // Every run is hosted by a lease's guardian, which ends the run's whole tree even if this CLI is
  // SIGKILLed. The run keeps the caller's cwd (the lease API's default is the private run dir).
  // As a subreaper, this process inherits the run's root if the guardian dies, and can still
  // read its exit status (the CLI starts no other children whose orphans could land here).
  const lease: Lease = await openLease({
    name: values.lease ?? DEFAULT_LEASE_NAME,
    holder: 'cli',
    holderSubreaper: true,
    // One linear read: copying process.env is quadratic in Node (engine runtime/environment.ts),
    // and nothing in the CLI changes its own environment, so what it started with is what it has.
    // As a block it is sent to the guardian unparsed, and parsed once there.
    environment: readStartEnvironBlock() ?? readStartEnvironment(),
  });
  lease.onGuardianLost((loss) => {
    process.stderr.write(
      `treewarden: guardian ${loss.guardian.pid} died; this process now supervises the run itself\n`,
    );
  });
  let run: Run;
  try {
    run = lease.startRun({ ...spec, cwd: spec.cwd ?? process.cwd() });
  } catch (error) {
    await lease.release();
    if (error instanceof RunSpecError) throw new UsageError(error.message);
    throw error;
  }
  const signals = cancelOnSignals(run);
  const outcome = await run.outcome;
  await lease.release();
  signals.dispose();
  const lost = lease.guardianLost;
  const guardianLost = lost === null ? {} : { guardianLost: { pid: lost.guardian.pid, signal: lost.signal } };
  if (json) await writeOut(process.stdout, `${JSON.stringify({ ...toJson(outcome), ...guardianLost })}\n`);
  else await writeText(process.stderr, summarize(outcome));
  const signal = signals.received();
  if (signal !== null && outcome.classification === 'cancelled') return signalExitCode(signal) ?? 1;
  return exitCodeFor(outcome);
}

export const runCommand: CliCommand = {
  summary: 'run a command under supervision, with a timeout and optional memory/process/CPU/idle limits',
  usage: USAGE,
  main,
};
