/** startRun, retryRun and runScenario: every run starts under a lease this host holds. */
import type { RunSpec } from '@treewarden/engine';
import type { CommandOf, CommandResult } from '@treewarden/protocol';
import type { HostContext } from '../context.js';
import type { HostRun } from '../engine/port.js';
import { endRun, type RunRecord, recordOwnRun, toKillReport } from '../run-record.js';

/** The lease UI-started runs go under unless the user names another. */
export const APP_LEASE_NAME = 'treewarden-app';
export const SCENARIO_LEASE_NAME = 'treewarden-scenarios';

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
  const record = recordOwnRun(handle, context.now(), uniqueRecordId(context, handle.runId));
  context.runs.set(record.id, record);
  void handle.outcome.then(
    (outcome) => {
      endRun(record, outcome, context.now());
      context.emit({
        type: 'runEnded',
        runId: record.id,
        classification: outcome.classification,
        exitCode: outcome.exitCode,
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
      record.stderrTail = `engine error: ${error instanceof Error ? error.message : String(error)}`;
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
  const record = trackRun(context, await lease.startRun(spec));
  return { runId: record.id, leaseId: record.leaseId };
}

export function startRun(context: HostContext, command: CommandOf<'startRun'>): Promise<CommandResult<'startRun'>> {
  const spec: RunSpec = {
    command: command.command,
    args: command.args,
    ...(command.cwd === undefined || command.cwd === '' ? {} : { cwd: command.cwd }),
    timeoutSeconds: command.timeoutSeconds,
    output: 'capture',
    // Retry reuses record.spec, so the limits travel with it; bounds are the engine's again at start.
    ...(command.limits === undefined ? {} : { limits: command.limits }),
  };
  return launchRun(context, spec, command.leaseName ?? APP_LEASE_NAME);
}

export function retryRun(context: HostContext, command: CommandOf<'retryRun'>): Promise<CommandResult<'retryRun'>> {
  const record = context.runs.get(command.runId);
  if (record === undefined || record.handle === null) {
    throw new CommandRefusedError(
      `run ${command.runId} was not started by this app, so its full command line is unknown: start it again from "New run"`,
    );
  }
  const lease = context.ownLease(record.leaseId);
  const { runId: _previousId, ...spec } = record.spec;
  return launchRun(context, spec, lease?.name ?? APP_LEASE_NAME);
}

export async function runScenario(
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
  const scenario = lease.startScenario(command.name, command.naive ?? false, (run) => trackRun(context, run));
  context.scenarios.add(scenario);
  void scenario.done.finally(() => context.scenarios.delete(scenario));
  return { runId: scenario.runId, leaseId: lease.id };
}
