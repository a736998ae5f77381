/**
 * `treewarden kill PID [--start T] [--grace S] [--json]`: ends PID's whole tree with the
 * revalidated kill. `--start` names the identity the user saw; a PID that now has another start
 * time is a different process and is refused (exit 3) with nothing signalled.
 */
import { parseArgs } from 'node:util';
import {
  appendLedgerRecord,
  createTableReader,
  defaultActor,
  type KillOutcome,
  killRecordOf,
  killTree,
  normalizeGrace,
  type ProcessEntry,
  type ProcessIdentity,
  RunSpecError,
  readProcEntry,
  verifyStateDir,
} from '@treewarden/engine';
import { KILL_REASON_OF_KILLER } from '@treewarden/protocol/vocabulary';
import { parsePid, parseSeconds, writeOut } from '../args.js';
import { EXIT_KILL_FAILED, EXIT_OK, EXIT_REFUSED } from '../exit-codes.js';
import { writeText } from '../terminal-text.js';
import { type CliCommand, UsageError } from './command.js';

const USAGE = 'treewarden kill PID [--start T] [--grace S] [--json]';
const OPTIONS = { start: { type: 'string' }, grace: { type: 'string' }, json: { type: 'boolean' } } as const;

function exitCodeFor(outcome: KillOutcome): number {
  if (outcome.result === 'kill_failed') return EXIT_KILL_FAILED;
  if (outcome.result === 'refused') return EXIT_REFUSED;
  return EXIT_OK;
}

function describe(outcome: KillOutcome): string {
  const { pid } = outcome.target;
  const seconds = (outcome.durationMs / 1000).toFixed(2);
  switch (outcome.result) {
    case 'killed':
      return `treewarden: ended the tree of ${pid} (${outcome.killed.length} process(es)) in ${seconds} s\n`;
    case 'already_gone':
      return `treewarden: ${pid} is already gone; nothing to kill\n`;
    case 'refused':
      return `treewarden: refused to kill ${pid}, nothing was signalled: ${outcome.error ?? 'identity uncertain'}\n`;
    case 'kill_failed':
      return `treewarden: kill_failed for ${pid} after ${outcome.attempts} attempt(s); survivors: ${outcome.survivors
        .map((s) => `${s.pid} (start ${s.startTime})`)
        .join(', ')}${outcome.error ? `: ${outcome.error}` : ''}\n`;
  }
}

function goneOutcome(target: ProcessIdentity): KillOutcome {
  return {
    result: 'already_gone',
    target,
    attempts: 0,
    killed: [],
    survivors: [],
    timeline: [],
    startedAtMs: Date.now(),
    durationMs: 0,
  };
}

/** The live entry for `pid`: /proc directly on Linux, the platform reader elsewhere. */
async function readEntry(pid: number): Promise<ProcessEntry | null> {
  if (process.platform === 'linux') return readProcEntry(pid);
  const table = await createTableReader().readTrees([pid]);
  if (table === null)
    throw new Error('no process table could be read, so the identity cannot be checked; nothing was signalled');
  return table.entries.get(pid) ?? null;
}

async function killIdentity(pid: number, start: string | undefined, graceMs: number | undefined): Promise<KillOutcome> {
  let startTime = start;
  if (startTime === undefined) {
    const entry = await readEntry(pid);
    if (entry === null) return goneOutcome({ pid, startTime: '' });
    startTime = entry.startTime;
  }
  // killTree re-reads the table (the platform's reader) and refuses a start time that no longer
  // matches the live pid: nothing is signalled then.
  return killTree({ pid, startTime }, graceMs === undefined ? {} : { graceMs });
}

/**
 * Puts the kill on record, so a run whose root this ended is told as killed by a person (`cli`),
 * not as crashed by a signal. A kill that signalled nothing changes no run and is not recorded.
 * The kill already happened: a state dir that cannot be written only costs the record (said on stderr).
 */
async function recordKill(outcome: KillOutcome): Promise<void> {
  if (outcome.result !== 'killed' && outcome.result !== 'kill_failed') return;
  try {
    const { ledgerFile } = verifyStateDir();
    appendLedgerRecord(ledgerFile, killRecordOf(outcome, null, null, KILL_REASON_OF_KILLER.cli), defaultActor('cli'));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    await writeText(process.stderr, `treewarden kill: the kill was not recorded in the ledger: ${why}\n`);
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: OPTIONS,
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new UsageError(`kill: expected exactly one PID, got ${positionals.length}`);
  const pid = parsePid('PID', positionals[0]) as number;
  if (values.start !== undefined && !/^\S+$/.test(values.start)) throw new UsageError('kill: --start is empty');
  let graceMs: number | undefined;
  try {
    const grace = normalizeGrace(parseSeconds('grace', values.grace));
    graceMs = grace === undefined ? undefined : Math.round(grace * 1000);
  } catch (error) {
    if (error instanceof RunSpecError) throw new UsageError(error.message);
    throw error;
  }
  const outcome = await killIdentity(pid, values.start, graceMs);
  await recordKill(outcome);
  if (values.json === true) await writeOut(process.stdout, `${JSON.stringify(outcome)}\n`);
  else
    await writeText(
      outcome.result === 'killed' || outcome.result === 'already_gone' ? process.stdout : process.stderr,
      describe(outcome),
    );
  return exitCodeFor(outcome);
}

export const killCommand: CliCommand = { summary: "end a process's whole tree, identity-checked", usage: USAGE, main };
