/**
 * `treewarden free-port PORT [--udp] [--yes] [--grace S] [--json] [--expect PID:START…]`: shows who
 * listens on PORT and the trees a kill would end; with --yes ends them with the revalidated tree
 * kill. Only listeners are targets: a process connected to the port is never one. `--expect` (or
 * `--pid PID --start T`) pins --yes to the holders a preview showed: a holder swapped in between
 * the two calls refuses the whole kill (exit 3), saying what changed.
 */
import { parseArgs } from 'node:util';
import {
  executeFreePort,
  type FreePortOutcome,
  type FreePortPlan,
  formatExpectedIdentities,
  normalizeGrace,
  PortsUnsupportedError,
  type ProcessIdentity,
  parseExpectedIdentity,
  pinFreePortPlan,
  planFreePort,
  RunSpecError,
} from '@treewarden/engine';
import { parsePid, parseSeconds, writeOut } from '../args.js';
import { EXIT_FAILURE, EXIT_KILL_FAILED, EXIT_OK, EXIT_REFUSED } from '../exit-codes.js';
import { terminalArgs, terminalText, writeText } from '../terminal-text.js';
import { type CliCommand, UsageError } from './command.js';

const USAGE =
  'treewarden free-port PORT [--udp] [--yes] [--grace S] [--json] [--expect PID:START[,PID:START…]] [--pid PID --start T]';
const OPTIONS = {
  udp: { type: 'boolean' },
  yes: { type: 'boolean' },
  grace: { type: 'string' },
  json: { type: 'boolean' },
  expect: { type: 'string', multiple: true },
  pid: { type: 'string' },
  start: { type: 'string' },
} as const;
/** free-port exits 1 when nothing listened on the port (nothing to do). */
const EXIT_NOTHING_LISTENED = 1;

function parsePort(raw: string | undefined): number {
  const value = Number(raw);
  if (raw === undefined || !/^\d{1,5}$/.test(raw) || value < 1 || value > 65_535)
    throw new UsageError(`PORT ${JSON.stringify(raw ?? '')} is not a port number (an integer from 1 to 65535)`);
  return value;
}

function parseGraceMs(raw: string | undefined): number | undefined {
  try {
    const grace = normalizeGrace(parseSeconds('grace', raw));
    return grace === undefined ? undefined : Math.round(grace * 1000);
  } catch (error) {
    if (error instanceof RunSpecError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * The identities `--yes` is pinned to: every `--expect PID:START` (repeated or comma-separated,
 * as the preview prints them) and `--pid PID --start T`; null when none was given.
 */
function parseExpected(values: {
  readonly expect?: readonly string[];
  readonly pid?: string;
  readonly start?: string;
}): ProcessIdentity[] | null {
  if ((values.pid === undefined) !== (values.start === undefined))
    throw new UsageError('free-port: --pid and --start go together (the identity the preview showed)');
  const expected: ProcessIdentity[] = [];
  const pid = parsePid('--pid', values.pid);
  if (pid !== undefined && values.start !== undefined) {
    const identity = parseExpectedIdentity(`${pid}:${values.start}`);
    if (identity === null) throw new UsageError(`--start ${JSON.stringify(values.start)} is not a start time`);
    expected.push(identity);
  }
  for (const text of (values.expect ?? []).flatMap((value) => value.split(','))) {
    const identity = parseExpectedIdentity(text);
    if (identity === null)
      throw new UsageError(`--expect ${JSON.stringify(text)} is not PID:START (as the preview prints it)`);
    expected.push(identity);
  }
  return values.expect === undefined && pid === undefined ? null : expected;
}

function describePlan(plan: FreePortPlan): string {
  const lines = [`port ${plan.port}/${plan.proto}: ${plan.listeners.length} listener(s)`];
  for (const row of plan.listeners)
    lines.push(
      `  ${terminalText(row.address)}:${row.port}  pid ${row.pid} (start ${row.startTime})${row.runId ? ` run ${row.runId}` : ''}  ${terminalArgs(row.args)}`,
    );
  const size = plan.targets.reduce((sum, target) => sum + target.tree.length, 0);
  if (plan.targets.length > 0) lines.push(`a kill would end ${size} process(es):`);
  for (const target of plan.targets) {
    const root = target.tree[0];
    for (const member of target.tree) {
      const indent = member === root ? '  ' : '    ';
      const args = member.args.length > 0 ? terminalArgs(member.args) : `[${terminalText(member.command)}]`;
      lines.push(`${indent}${member.pid} (start ${member.startTime}, uid ${member.uid})  ${args}`);
    }
  }
  for (const refusal of plan.refusals) lines.push(`refused: ${terminalText(refusal)}`);
  if (plan.targets.length > 0) lines.push(`identity: --expect ${formatExpectedIdentities(plan).join(',')}`);
  return `${lines.join('\n')}\n`;
}

function describeOutcome(plan: FreePortPlan, outcome: FreePortOutcome): string {
  const ended = outcome.outcomes.reduce((sum, kill) => sum + kill.killed.length, 0);
  switch (outcome.result) {
    case 'freed':
      return `treewarden: port ${plan.port}/${plan.proto} is free; ended ${ended} process(es)\n`;
    case 'nothing_listening':
      return `treewarden: nothing listens on port ${plan.port}/${plan.proto}\n`;
    case 'refused':
      return `treewarden: refused, nothing was signalled: ${outcome.error ?? 'identity uncertain'}\n`;
    case 'survivors': {
      const survivors = outcome.outcomes.flatMap((kill) =>
        kill.survivors.map((s) => `${s.pid} (start ${s.startTime})`),
      );
      const holders = outcome.stillListening.map((l) => (l.pid > 0 ? `pid ${l.pid}` : 'an uninspectable process'));
      return `treewarden: port ${plan.port}/${plan.proto} is still held${holders.length > 0 ? ` by ${holders.join(', ')}` : ''}${
        survivors.length > 0 ? `; survivors: ${survivors.join(', ')}` : ''
      }${outcome.error ? `: ${outcome.error}` : ''}\n`;
    }
  }
}

function exitCodeFor(result: FreePortOutcome['result'] | 'preview'): number {
  if (result === 'nothing_listening') return EXIT_NOTHING_LISTENED;
  if (result === 'refused') return EXIT_REFUSED;
  if (result === 'survivors') return EXIT_KILL_FAILED;
  return EXIT_OK;
}

function planJson(plan: FreePortPlan) {
  const preview = plan.targets.map((target) => ({
    ...target.identity,
    tree: target.tree.map(({ pid, ppid, startTime, uid, args, command }) => ({
      pid,
      ppid,
      startTime,
      uid,
      command,
      args,
    })),
  }));
  return {
    port: plan.port,
    proto: plan.proto,
    listeners: plan.listeners,
    preview,
    refusals: plan.refusals,
    // What to pass back as `--expect` so a later --yes ends exactly these holders.
    expect: formatExpectedIdentities(plan).join(','),
  };
}

/** Without --yes: the preview only. Nothing listening exits 1, a plan that would be refused exits 3. */
function previewResult(plan: FreePortPlan): FreePortOutcome['result'] | 'preview' {
  if (plan.refusals.length > 0) return 'refused';
  return plan.targets.length === 0 ? 'nothing_listening' : 'preview';
}

async function main(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: OPTIONS,
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new UsageError(`free-port: expected exactly one PORT, got ${positionals.length}`);
  const port = parsePort(positionals[0]);
  const graceMs = parseGraceMs(values.grace);
  const expected = parseExpected(values);
  let plan: FreePortPlan;
  try {
    plan = await planFreePort(port, values.udp === true ? 'udp' : 'tcp');
  } catch (error) {
    if (!(error instanceof PortsUnsupportedError)) throw error;
    await writeText(process.stderr, `treewarden free-port: ${error.message}\n`);
    return EXIT_FAILURE;
  }
  const json = values.json === true;
  let changes: readonly string[] = [];
  if (expected !== null) ({ plan, changes } = pinFreePortPlan(plan, expected));
  if (!json) for (const change of changes) await writeText(process.stderr, `treewarden free-port: ${change}\n`);
  if (!json && (plan.listeners.length > 0 || plan.refusals.length > 0))
    await writeText(process.stdout, describePlan(plan));
  if (values.yes !== true) {
    const result = previewResult(plan);
    if (json) await writeOut(process.stdout, `${JSON.stringify({ ...planJson(plan), changes, result })}\n`);
    else if (result === 'preview')
      await writeText(process.stdout, 'dry run: nothing was signalled; add --yes to end these trees\n');
    else if (result === 'nothing_listening')
      await writeText(process.stdout, `nothing listens on port ${port}/${plan.proto}\n`);
    return exitCodeFor(result);
  }
  const outcome = await executeFreePort(plan, graceMs === undefined ? {} : { graceMs });
  if (json) await writeOut(process.stdout, `${JSON.stringify({ ...planJson(plan), changes, ...outcome })}\n`);
  else {
    const quiet = outcome.result === 'freed' || outcome.result === 'nothing_listening';
    await writeText(quiet ? process.stdout : process.stderr, describeOutcome(plan, outcome));
  }
  return exitCodeFor(outcome.result);
}

export const freePortCommand: CliCommand = {
  summary: 'end the processes listening on a port (preview; --yes to kill, identity-checked)',
  usage: USAGE,
  main,
};
