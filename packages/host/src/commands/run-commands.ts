/** startRun, retryRun and runScenario: every run starts under a lease this host holds. */
import { DeadlineError, type RunSpec, withDeadline } from '@treewarden/engine';
import type { CommandOf, CommandResult } from '@treewarden/protocol';
import type { HostContext } from '../context.js';
import type { HostRun } from '../engine/port.js';
import { endRun, type RunRecord, recordOwnRun, retryRefusal, toKillReport } from '../run-record.js';

/** The lease UI-started runs go under unless the user names another. */
export const APP_LEASE_NAME = 'treewarden-app';
export const SCENARIO_LEASE_NAME = 'treewarden-scenarios';

/**
 * A run whose root has no identity once the guardian answered is failing to launch (the spawn
 * error arrives a moment later): the reply waits this long for that verdict, so the user reads
 * "missing binary" instead of "started".
 */
export const LAUNCH_VERDICT_WAIT_MS = 5000;
const LAUNCH_FAILURES: ReadonlySet<string> = new Set(['missing_binary', 'launch_failure']);

export class CommandRefusedError extends Error {
  override readonly name = 'CommandRefusedError';
}

function uniqueRecordId(context: HostContext, runId: string): string {
  if (!context.runs.has(runId)) return runId;
  let n = 2;
  while (context.runs.has(`${runId}~${n}`)) n += 1;
  return `${runId}~${n}`;
}

/** Records a run this host started and follows it to its end. */
export function trackRun(context: HostContext, handle: HostRun): RunRecord {
  const record = recordOwnRun(handle, uniqueRecordId(context, handle.runId));
  context.runs.set(record.id, record);
  void handle.outcome.then(
    (outcome) => {
      endRun(record, outcome, context.now());
      context.emit({
        type: 'runEnded',
        runId: record.id,
        classification: outcome.classification,
        exitCode: outcome.exitCode,
        error: outcome.error ?? null,
      });
      if (outcome.kill !== undefined)
        context.emit({ type: 'killOutcome', runId: record.id, report: toKillReport(outcome.kill) });
      context.requestPoll();
    },
    (error: unknown) => {
      // The supervisor promises an outcome for every run; if it breaks that promise, say so.
      record.phase = 'ended';
      record.endedAtMs = context.now();
      record.classification = 'error';
      record.endReason = `engine error: ${error instanceof Error ? error.message : String(error)}`;
      context.requestPoll();
    },
  );
  context.requestPoll();
  return record;
}

/** Starts `spec` under the lease called `leaseName`. */
export async function launchRun(
  context: HostContext,
  spec: RunSpec,
  leaseName: string,
): Promise<CommandResult<'startRun'>> {
  const lease = await context.leaseNamed(leaseName);
  const handle = await lease.startRun(spec);
  const record = trackRun(context, handle);
  return { runId: record.id, leaseId: record.leaseId, launchError: await launchErrorOf(handle) };
}

/** The engine's message when the run could not start; null once it has a root (it started). */
async function launchErrorOf(handle: HostRun): Promise<string | null> {
  if (handle.root !== null) return null;
  const verdict = await withDeadline(handle.outcome, LAUNCH_VERDICT_WAIT_MS, 'the launch verdict').catch((error) => {
    if (error instanceof DeadlineError) return null; // still running: it started
    throw error;
  });
  if (verdict === null || !LAUNCH_FAILURES.has(verdict.classification)) return null;
  return verdict.error ?? `the run ended ${verdict.classification} before it started`;
}

export function handleStartRun(
  context: HostContext,
  command: CommandOf<'startRun'>,
): Promise<CommandResult<'startRun'>> {
  const spec: RunSpec = {
    command: command.command,
    args: command.args,
    ...(command.cwd === undefined || command.cwd === '' ? {} : { cwd: command.cwd }),
    timeoutSeconds: command.timeoutSeconds,
    output: 'capture',
    // Retry reuses record.spec, so the limits travel with it; bounds are the engine's again at start.
    ...(command.limits === undefined ? {} : { limits: command.limits }),
    // Retry keeps it too (record.spec); the engine refuses it before launch where no cgroup is usable.
    ...(command.cgroup === true ? { cgroup: true } : {}),
  };
  return launchRun(context, spec, command.leaseName ?? APP_LEASE_NAME);
}

export function handleRetryRun(
  context: HostContext,
  command: CommandOf<'retryRun'>,
): Promise<CommandResult<'retryRun'>> {
  const record = context.runs.get(command.runId);
  if (record === undefined) throw new CommandRefusedError(`no run ${command.runId} is shown here any more`);
  if (record.retrySpec === null) throw new CommandRefusedError(retryRefusal(record) ?? 'Retry is not available');
  const lease = context.ownLease(record.leaseId);
  return launchRun(context, { ...record.retrySpec, output: 'capture' }, lease?.name ?? APP_LEASE_NAME);
}

export async function handleRunScenario(
  context: HostContext,
  command: CommandOf<'runScenario'>,
): Promise<CommandResult<'runScenario'>> {
  const known = context.port.listScenarios().find((scenario) => scenario.name === command.name);
  if (known === undefined)
    throw new CommandRefusedError(`no scenario named "${command.name}": ask listScenarios for the names`);
  if (!known.available)
    throw new CommandRefusedError(
      `scenario "${command.name}" cannot run here: ${known.unavailableReason ?? 'unavailable'}`,
    );
  const lease = await context.leaseNamed(SCENARIO_LEASE_NAME);
  const options = { naive: command.naive ?? false, pace: command.pace ?? 'normal' } as const;
  const scenario = lease.startScenario(command.name, options, (run) => trackRun(context, run));
  context.scenarios.add(scenario);
  void scenario.done.finally(() => context.scenarios.delete(scenario));
  return { runId: scenario.runId, leaseId: lease.id };
}
