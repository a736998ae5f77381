/**
 * `treewarden ps [--json] [--tree] [--pid PID]`: the process table with its identity fields,
 * flat or as a tree; `--pid` limits it to that process and its descendants.
 */
import { parseArgs } from 'node:util';
import { createTableReader, indexChildren, type ProcessEntry, type ProcessTable } from '@treewarden/engine';
import { parsePid, writeOut } from '../args.js';
import { EXIT_FAILURE, EXIT_OK } from '../exit-codes.js';
import type { CliCommand } from './command.js';

const USAGE = 'treewarden ps [--json] [--tree] [--pid PID]';
const OPTIONS = { json: { type: 'boolean' }, tree: { type: 'boolean' }, pid: { type: 'string' } } as const;
const INDENT = '  ';

export interface PsRow {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly sid: number;
  readonly state: string;
  readonly startTime: string;
  readonly uid: number;
  readonly command: string;
  readonly args: readonly string[];
}

export interface PsNode extends PsRow {
  readonly children: PsNode[];
}

function toRow(entry: ProcessEntry): PsRow {
  const { pid, ppid, pgid, sid, state, startTime, uid, command, args } = entry;
  return { pid, ppid, pgid, sid, state, startTime, uid, command, args };
}

/** Roots: the asked pid, or every process whose parent is not in the table (pid 1, kthreadd, 0-parented). */
function buildForest(table: ProcessTable, rootPid: number | undefined): PsNode[] {
  const children = indexChildren(table.entries);
  const build = (pid: number, seen: Set<number>): PsNode | null => {
    const entry = table.entries.get(pid);
    if (entry === undefined || seen.has(pid)) return null;
    seen.add(pid);
    const kids = [...(children.get(pid) ?? [])].sort((a, b) => a - b);
    const nodes = kids.map((kid) => build(kid, seen)).filter((node): node is PsNode => node !== null);
    return { ...toRow(entry), children: nodes };
  };
  const seen = new Set<number>();
  const roots =
    rootPid !== undefined
      ? [rootPid]
      : [...table.entries.values()].filter((e) => !table.entries.has(e.ppid) || e.ppid === e.pid).map((e) => e.pid);
  return roots
    .sort((a, b) => a - b)
    .map((pid) => build(pid, seen))
    .filter((node): node is PsNode => node !== null);
}

function flatten(nodes: readonly PsNode[], depth = 0, out: { row: PsRow; depth: number }[] = []) {
  for (const node of nodes) {
    const { children, ...row } = node;
    out.push({ row, depth });
    flatten(children, depth + 1, out);
  }
  return out;
}

function formatTable(rows: readonly { row: PsRow; depth: number }[]): string {
  const header = ['PID', 'PPID', 'PGID', 'SID', 'S', 'START', 'UID', 'COMMAND'];
  const cells = rows.map(({ row, depth }) => [
    String(row.pid),
    String(row.ppid),
    String(row.pgid),
    String(row.sid),
    row.state,
    row.startTime,
    String(row.uid),
    INDENT.repeat(depth) + (row.args.length > 0 ? row.args.join(' ') : `[${row.command}]`),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((line) => line[column]?.length ?? 0)),
  );
  const format = (line: readonly string[]) =>
    line.map((cell, column) => (column === line.length - 1 ? cell : cell.padStart(widths[column] ?? 0))).join(' ');
  return `${[format(header), ...cells.map(format)].join('\n')}\n`;
}

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false });
  const rootPid = parsePid('--pid', values.pid);
  const table = await createTableReader().readAll();
  if (table === null) {
    await writeOut(
      process.stderr,
      'treewarden ps: no process table could be read (the inspector failed or overran its bounds)\n',
    );
    return EXIT_FAILURE;
  }
  if (rootPid !== undefined && !table.entries.has(rootPid)) {
    await writeOut(process.stderr, `treewarden ps: no process ${rootPid}\n`);
    return EXIT_FAILURE;
  }
  const forest = buildForest(table, rootPid);
  const tree = values.tree === true;
  const rows =
    tree || rootPid !== undefined
      ? flatten(forest)
      : [...table.entries.values()].map((e) => ({ row: toRow(e), depth: 0 }));
  if (values.json === true) {
    const body = tree ? forest : rows.map(({ row }) => row);
    await writeOut(process.stdout, `${JSON.stringify(body)}\n`);
  } else {
    await writeOut(process.stdout, formatTable(tree ? rows : rows.map(({ row }) => ({ row, depth: 0 }))));
  }
  return EXIT_OK;
}

export const psCommand: CliCommand = { summary: 'show the process table with identities', usage: USAGE, main };
