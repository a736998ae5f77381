/**
 * `treewarden history [--json] [--limit N]`: past runs and how they ended, from the ledger in the
 * state dir ($TREEWARDEN_HOME, else $XDG_STATE_HOME/treewarden). A torn last line (a writer that
 * crashed mid-record) is reported on stderr, never fatal.
 */
import { parseArgs } from 'node:util';
import {
  findOrphans,
  type RunHistoryEntry,
  readLedger,
  settleEndedRuns,
  summarizeRuns,
  verifyStateDir,
} from '@treewarden/engine';
import { writeOut } from '../args.js';
import { EXIT_OK } from '../exit-codes.js';
import { terminalArgs, writeText } from '../terminal-text.js';
import { type CliCommand, UsageError } from './command.js';

const USAGE = 'treewarden history [--json] [--limit N]';
const OPTIONS = { json: { type: 'boolean' }, limit: { type: 'string' } } as const;
const COMMAND_WIDTH = 60;

function parseLimit(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value <= 0)
    throw new UsageError(`--limit ${JSON.stringify(raw)} is not a positive integer`);
  return value;
}

function formatRow(run: RunHistoryEntry): string {
  const started = run.startedAt?.replace('T', ' ').slice(0, 19) ?? '?';
  const outcome = run.classification ?? 'no end recorded';
  const note = run.endedWithoutSupervisor !== null ? `  (${run.endedWithoutSupervisor})` : '';
  const exit = run.signal ?? (run.exitCode !== null ? `exit ${run.exitCode}` : '-');
  const duration = run.durationMs !== null ? `${(run.durationMs / 1000).toFixed(1)}s` : '-';
  const command = terminalArgs([run.command ?? '?', ...run.args]).slice(0, COMMAND_WIDTH);
  const survivors = `${run.survivors > 0 ? ` survivors=${run.survivors}` : ''}${run.killedBy !== null ? ` killed-by=${run.killedBy}` : ''}`;
  return `${started}  ${run.runId}  ${outcome.padEnd(14)} ${exit.padEnd(8)} ${duration.padStart(7)}  ${command}${survivors}${note}`;
}

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false });
  const limit = parseLimit(values.limit);
  const paths = verifyStateDir();
  // A run whose supervisors died and whose processes are all gone ends now, on record, before it is listed.
  settleEndedRuns(findOrphans({ paths }), { paths });
  const ledger = readLedger(paths.ledgerFile);
  const all = summarizeRuns(ledger.records);
  const runs = limit !== undefined ? all.slice(-limit) : all;
  for (const torn of ledger.torn) {
    const where = torn.atEnd ? 'last line' : `line ${torn.line}`;
    await writeText(
      process.stderr,
      `treewarden history: skipped a torn ledger record (${where} of ${paths.ledgerFile})\n`,
    );
  }
  for (const invalid of ledger.invalid) {
    await writeText(
      process.stderr,
      `treewarden history: skipped an invalid ledger record (line ${invalid.line} of ${paths.ledgerFile}: ${invalid.problem})\n`,
    );
  }
  if (values.json === true) {
    const body = { ledger: paths.ledgerFile, runs, torn: ledger.torn, invalid: ledger.invalid };
    await writeOut(process.stdout, `${JSON.stringify(body)}\n`);
    return EXIT_OK;
  }
  if (runs.length === 0) {
    await writeText(process.stdout, `no runs recorded in ${paths.ledgerFile}\n`);
    return EXIT_OK;
  }
  await writeText(process.stdout, `${runs.map(formatRow).join('\n')}\n`);
  return EXIT_OK;
}

export const historyCommand: CliCommand = {
  summary: 'list past runs and their outcomes from the ledger',
  usage: USAGE,
  main,
};
