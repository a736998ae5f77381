/**
 * start_background, list_runs, read_output, stop_run: the agent's background work, run under this
 * server's lease. Every input is checked before anything launches; a bad one is a tool error that
 * says how to fix the call.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import {
  assertPort,
  type ProcessIdentity,
  parseSize,
  type RunLimits,
  type RunOutcome,
  type RunSpec,
  validateRunSpec,
  withDeadline,
} from '@treewarden/engine';
import { type Readiness, waitUntilReady } from './readiness.js';
import { readRunUsage } from './run-usage.js';
import type { SessionRun, SessionRuns } from './session-runs.js';
import { failure, success, ToolError, type ToolResult } from './tool-result.js';
import {
  DEFAULT_READ_TAIL_CHARS,
  DEFAULT_READY_WAIT_SECONDS,
  MAX_READ_TAIL_CHARS,
  MAX_READY_WAIT_SECONDS,
  START_OUTPUT_TAIL_CHARS,
} from './tool-schemas.js';

/** stop_run waits this long for the tree kill to report (grace, freeze, retries) before it answers. */
export const STOP_WAIT_MS = 30_000;
/** After a start ended early, how long to wait for its outcome to arrive from the guardian. */
export const ENDED_OUTCOME_WAIT_MS = 5_000;

export interface StartInput {
  readonly command: readonly string[];
  readonly cwd?: string | undefined;
  readonly timeoutSeconds?: number | undefined;
  readonly maxMemory?: string | number | undefined;
  readonly maxProcs?: number | undefined;
  readonly readyPattern?: string | undefined;
  readonly port?: number | undefined;
  readonly readyTimeoutSeconds?: number | undefined;
  readonly keepAfterSession?: boolean | undefined;
}

function requireCwd(raw: string | undefined): string {
  const cwd = resolve(raw ?? process.cwd());
  let isDirectory = false;
  try {
    isDirectory = statSync(cwd).isDirectory();
  } catch {
    throw new ToolError(`cwd ${JSON.stringify(cwd)} does not exist: give an existing directory`);
  }
  if (!isDirectory) throw new ToolError(`cwd ${JSON.stringify(cwd)} is not a directory`);
  return cwd;
}

/**
 * V8's linear-time regexp engine (the `l` flag), so no pattern can stall the server on a line of
 * output: a catastrophic pattern such as `(a+)+b` runs in time linear in the text. Node has no
 * regexp timeout; this removes the class rather than bounding one pattern. The flag only enables
 * the `l` flag's parsing; every other regexp keeps the usual engine.
 */
setFlagsFromString('--enable-experimental-regexp-engine');
const LINEAR_TIME_FLAG = 'l';

function compilePattern(raw: string | undefined): RegExp | undefined {
  if (raw === undefined) return undefined;
  try {
    new RegExp(raw);
  } catch (error) {
    throw new ToolError(
      `readyPattern is not a valid regular expression: ${error instanceof Error ? error.message : ''}`,
    );
  }
  try {
    return new RegExp(raw, LINEAR_TIME_FLAG);
  } catch {
    throw new ToolError(
      'readyPattern uses backreferences or lookarounds, which cannot be matched in bounded time: use a pattern without them (e.g. a plain substring)',
    );
  }
}

function readyWaitMs(seconds: number | undefined): number {
  const value = seconds ?? DEFAULT_READY_WAIT_SECONDS;
  if (!Number.isFinite(value) || value < 1 || value > MAX_READY_WAIT_SECONDS)
    throw new ToolError(
      `readyTimeoutSeconds ${value} is out of bounds: give 1 to MAX_READY_WAIT_SECONDS (${MAX_READY_WAIT_SECONDS})`,
    );
  return Math.round(value * 1000);
}

function limitsOf(input: StartInput): RunLimits | undefined {
  const memory = typeof input.maxMemory === 'string' ? parseSize(input.maxMemory) : input.maxMemory;
  const limits: RunLimits = {
    ...(memory === undefined ? {} : { maxMemoryBytes: memory }),
    ...(input.maxProcs === undefined ? {} : { maxProcs: input.maxProcs }),
  };
  return Object.keys(limits).length > 0 ? limits : undefined;
}

/** The run spec, checked by the engine's own rules before the lease (and its guardian) exists. */
function specOf(input: StartInput): RunSpec {
  const [program, ...args] = input.command;
  if (program === undefined || program.trim() === '')
    throw new ToolError('command is empty: give the program and its arguments, e.g. ["npm", "run", "dev"]');
  const limits = limitsOf(input);
  const spec: RunSpec = {
    command: program,
    args,
    cwd: requireCwd(input.cwd),
    ...(input.timeoutSeconds === undefined ? {} : { timeoutSeconds: input.timeoutSeconds }),
    ...(limits === undefined ? {} : { limits }),
    output: 'capture',
  };
  validateRunSpec(spec);
  return spec;
}

const identities = (list: readonly ProcessIdentity[]) => list.map(({ pid, startTime }) => ({ pid, startTime }));

function outcomeOf(outcome: RunOutcome) {
  return {
    classification: outcome.classification,
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    survivors: identities(outcome.survivors),
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
  };
}

export async function startBackground(runs: SessionRuns, input: StartInput): Promise<ToolResult> {
  const spec = specOf(input);
  const readyPattern = compilePattern(input.readyPattern);
  const port = input.port === undefined ? undefined : assertPort(input.port);
  const deadlineMs = readyWaitMs(input.readyTimeoutSeconds);
  const started = await runs.start({ ...spec, keepAfterSession: input.keepAfterSession === true });
  const readiness = await waitUntilReady(started, {
    deadlineMs,
    ...(readyPattern === undefined ? {} : { readyPattern }),
    ...(port === undefined ? {} : { port }),
  });
  return readiness.state === 'ended' ? endedEarly(started) : startedResult(started, readiness);
}

async function startedResult(started: SessionRun, readiness: Exclude<Readiness, { state: 'ended' }>) {
  const usage = await readRunUsage(started);
  const ready = readiness.state === 'ready';
  return success({
    runId: started.id,
    pid: started.run.identity?.pid ?? null,
    startTime: started.run.identity?.startTime ?? null,
    ports: usage.ports,
    ready,
    ...(ready ? { readyBy: readiness.by } : {}),
    waitedMs: ready ? readiness.afterMs : readiness.waitedMs,
    state: started.run.phase,
    // Not ready in time: the run goes on; its output says what it is doing.
    ...(ready ? {} : { outputTail: started.output.read({ tail: START_OUTPUT_TAIL_CHARS }).text }),
  });
}

/** The run ended before it was ready (a missing binary, a crash): a tool error with its outcome. */
async function endedEarly(started: SessionRun): Promise<ToolResult> {
  const outcome = await withDeadline(started.run.outcome, ENDED_OUTCOME_WAIT_MS, 'the run outcome');
  const tail = `${outcome.stdoutTail}${outcome.stderrTail}`.slice(-START_OUTPUT_TAIL_CHARS);
  const details = {
    runId: started.id,
    pid: outcome.pid,
    startTime: outcome.startTime,
    ports: [],
    ready: false,
    waitedMs: Date.now() - started.startedAtMs,
    state: 'ended',
    classification: outcome.classification,
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
    outputTail: tail,
  };
  const why = outcome.error ?? `exit ${outcome.exitCode ?? outcome.signal ?? '?'}`;
  return failure(`the run ended before it was ready: ${outcome.classification} (${why})`, details);
}

export async function listRuns(runs: SessionRuns): Promise<ToolResult> {
  const rows = await Promise.all(runs.list().map(async (entry) => runRow(entry)));
  return success({ agent: runs.agent.agent, sessionId: runs.agent.sessionId, lease: runs.agent.leaseName, runs: rows });
}

async function runRow(entry: SessionRun) {
  const usage = await readRunUsage(entry);
  const ended = entry.outcome();
  return {
    runId: entry.id,
    command: [...entry.command],
    cwd: entry.cwd,
    state: entry.run.phase,
    pid: entry.run.identity?.pid ?? null,
    startTime: entry.run.identity?.startTime ?? null,
    startedAt: new Date(entry.startedAtMs).toISOString(),
    ...usage,
    keepAfterSession: entry.keepAfterSession,
    ...(ended === null ? {} : { outcome: outcomeOf(ended) }),
  };
}

function requireRun(runs: SessionRuns, runId: string): SessionRun {
  const found = runs.get(runId);
  if (found === undefined) {
    const known = runs.list().map((entry) => entry.id);
    throw new ToolError(
      `unknown runId ${JSON.stringify(runId)}: this session started ${known.length === 0 ? 'no runs' : known.join(', ')}`,
    );
  }
  return found;
}

export async function readOutput(
  runs: SessionRuns,
  input: { readonly runId: string; readonly tail?: number | undefined; readonly since?: number | undefined },
): Promise<ToolResult> {
  const target = requireRun(runs, input.runId);
  const tail = input.tail ?? DEFAULT_READ_TAIL_CHARS;
  if (tail < 1 || tail > MAX_READ_TAIL_CHARS)
    throw new ToolError(`tail ${tail} is out of bounds: give 1 to MAX_READ_TAIL_CHARS (${MAX_READ_TAIL_CHARS})`);
  if (input.since !== undefined && input.since < 0)
    throw new ToolError(`since ${input.since} is negative: give an offset ≥ 0`);
  const read = target.output.read({ tail, ...(input.since === undefined ? {} : { since: input.since }) });
  return success({ runId: target.id, ...read, state: target.run.phase });
}

export async function stopRun(runs: SessionRuns, input: { readonly runId: string }): Promise<ToolResult> {
  const target = requireRun(runs, input.runId);
  const before = target.outcome();
  if (before !== null)
    return success({
      runId: target.id,
      result: 'already_ended',
      classification: before.classification,
      killed: [],
      survivors: identities(before.survivors),
      ...(before.error === undefined ? {} : { error: before.error }),
    });
  target.run.cancel('stop_run from the agent', 'mcp');
  const outcome = await withDeadline(target.run.outcome, STOP_WAIT_MS, 'the tree kill').catch(() => null);
  if (outcome === null)
    return failure(`the tree kill did not report within ${STOP_WAIT_MS} ms; list_runs shows when it ends`);
  const kill = outcome.kill;
  const result = kill?.result ?? 'already_gone';
  const structured = {
    runId: target.id,
    result,
    classification: outcome.classification,
    killed: identities(kill?.killed ?? []),
    survivors: identities(outcome.survivors),
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
  };
  return result === 'killed' || result === 'already_gone'
    ? success(structured)
    : failure(`the tree kill ended ${result}: ${outcome.error ?? kill?.error ?? 'see survivors'}`, structured);
}
