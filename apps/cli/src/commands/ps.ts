/**
 * `treewarden ps [--json] [--tree] [--pid PID] [--wide] [--fds]`: the process table with its identity
 * fields, flat or as a tree; `--pid` limits it to that process and its descendants. `--json` rows
 * are the protocol's process node (the host's `toProcessNode`, as the UI gets them) plus the whole
 * `args`; the text is for people (ps-format.ts).
 * A process inside a container carries `container` (id, runtime, name, image; a CONTAINER column in
 * the text), read from its cgroup and the engine socket (packages/engine/src/containers/).
 * `--fds` adds each process's open fds and inotify watches (`fds`; FDS and WATCHES columns): a
 * readdir and a readlink per fd of every process shown, so only when asked.
 */
import { parseArgs } from 'node:util';
import {
  ContainerResolver,
  createTableReader,
  indexChildren,
  type ProcessContainer,
  type ProcessEntry,
  type ProcessTable,
  readFdUsage,
} from '@treewarden/engine';
import { toProcessNode } from '@treewarden/host';
import type { FdUsage, ProcessNode } from '@treewarden/protocol';
import { parsePid, writeOut } from '../args.js';
import { EXIT_FAILURE, EXIT_OK } from '../exit-codes.js';
import { writeText } from '../terminal-text.js';
import type { CliCommand } from './command.js';
import { formatPsTable } from './ps-format.js';

const USAGE = 'treewarden ps [--json] [--tree] [--pid PID] [--wide] [--fds]';
const OPTIONS = {
  json: { type: 'boolean' },
  tree: { type: 'boolean' },
  pid: { type: 'string' },
  wide: { type: 'boolean' },
  fds: { type: 'boolean' },
} as const;
/** A terminal that reports no width (0) is taken as the classic 80 columns. */
const DEFAULT_COLUMNS = 80;

/** The protocol's process node, with the whole argv beside its display `commandLine`. */
export interface PsRow extends ProcessNode {
  readonly args: readonly string[];
  /** The container the process runs in (id, runtime, name, image); absent outside any. */
  readonly container?: ProcessContainer;
  /** With `--fds`: open fds, inotify watches and the soft fd limit; absent where /proc was unreadable. */
  readonly fds?: FdUsage;
}

/** What each row adds beside the table's own fields. */
interface RowExtras {
  readonly containers: ReadonlyMap<number, ProcessContainer>;
  readonly fdsOf: ((pid: number) => FdUsage | null) | null;
}

export interface PsNode extends PsRow {
  readonly children: PsNode[];
}

/** One read has no earlier CPU time to diff against: cpuPercent is absent (unknown), never 0. */
function toRow(entry: ProcessEntry, extras: RowExtras): PsRow {
  const container = extras.containers.get(entry.pid);
  const fds = extras.fdsOf?.(entry.pid) ?? null;
  return {
    ...toProcessNode(entry, undefined, false),
    args: entry.args,
    ...(container === undefined ? {} : { container }),
    ...(fds === null ? {} : { fds }),
  };
}

/** Columns to fit on a terminal; null (whole lines) when piped or with --wide. */
function outputWidth(wide: boolean): number | null {
  if (wide || !process.stdout.isTTY) return null;
  return process.stdout.columns > 0 ? process.stdout.columns : DEFAULT_COLUMNS;
}

/** Roots: the asked pid, or every process whose parent is not in the table (pid 1, kthreadd, 0-parented). */
function buildForest(table: ProcessTable, rootPid: number | undefined, extras: RowExtras): PsNode[] {
  const children = indexChildren(table.entries);
  const build = (pid: number, seen: Set<number>): PsNode | null => {
    const entry = table.entries.get(pid);
    if (entry === undefined || seen.has(pid)) return null;
    seen.add(pid);
    const kids = [...(children.get(pid) ?? [])].sort((a, b) => a - b);
    const nodes = kids.map((kid) => build(kid, seen)).filter((node): node is PsNode => node !== null);
    return { ...toRow(entry, extras), children: nodes };
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

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false });
  const rootPid = parsePid('--pid', values.pid);
  const table = await createTableReader().readAll();
  if (table === null) {
    await writeText(
      process.stderr,
      'treewarden ps: no process table could be read (the inspector failed or overran its bounds)\n',
    );
    return EXIT_FAILURE;
  }
  if (rootPid !== undefined && !table.entries.has(rootPid)) {
    await writeText(process.stderr, `treewarden ps: no process ${rootPid}\n`);
    return EXIT_FAILURE;
  }
  // Only descendants of a container shim are looked at, and nothing at all without an engine socket.
  const containers = await new ContainerResolver().resolve(table);
  const extras: RowExtras = { containers, fdsOf: values.fds === true ? readFdUsage : null };
  const tree = values.tree === true;
  // Built only when shown: with --fds each row costs a readdir of its fds.
  const forest = tree || rootPid !== undefined ? buildForest(table, rootPid, extras) : [];
  const rows =
    tree || rootPid !== undefined
      ? flatten(forest)
      : // Numerically by pid: the table's order is the reader's (directory names, compared as text).
        [...table.entries.values()].sort((a, b) => a.pid - b.pid).map((e) => ({ row: toRow(e, extras), depth: 0 }));
  if (values.json === true) {
    const body = tree ? forest : rows.map(({ row }) => row);
    await writeOut(process.stdout, `${JSON.stringify(body)}\n`);
  } else {
    const width = outputWidth(values.wide === true);
    const options = { width, fds: values.fds === true };
    await writeText(process.stdout, formatPsTable(tree ? rows : rows.map(({ row }) => ({ row, depth: 0 })), options));
  }
  return EXIT_OK;
}

export const psCommand: CliCommand = { summary: 'show the process table with identities', usage: USAGE, main };
