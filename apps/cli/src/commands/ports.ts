/**
 * `treewarden ports [--json]`: every listening TCP socket and bound UDP socket on the machine,
 * with the identity, argv and run of the process that holds it.
 */
import { parseArgs } from 'node:util';
import { createEntryLookup, createPortReader, describeListeners, type PortMap, type PortRow } from '@treewarden/engine';
import type { PortsReport } from '@treewarden/protocol';
import { writeOut } from '../args.js';
import { EXIT_FAILURE, EXIT_OK } from '../exit-codes.js';
import { writeText } from '../terminal-text.js';
import type { CliCommand } from './command.js';
import { formatColumns, hiddenSocketsNote, readPortMapOrExplain } from './port-format.js';

const USAGE = 'treewarden ports [--json]';
const OPTIONS = { json: { type: 'boolean' } } as const;

function formatRows(rows: readonly PortRow[]): string {
  const header = ['PROTO', 'ADDRESS', 'PORT', 'PID', 'START', 'RUN', 'COMMAND'];
  const cells = rows.map((row) => [
    row.proto,
    row.address,
    String(row.port),
    String(row.pid),
    row.startTime,
    row.runId ?? '-',
    row.args.join(' '),
  ]);
  return formatColumns(header, cells, new Set([2, 3]));
}

function toJson(rows: readonly PortRow[], map: PortMap): string {
  const unattributed = map.unattributed.map(({ port, proto, address }) => ({ port, proto, address }));
  // `satisfies` keeps the engine's rows and the protocol's contract in step at compile time.
  const ports = rows.map((row) => ({ ...row, args: [...row.args] }));
  const report = { ports, unattributed, skippedPids: map.skippedPids } satisfies PortsReport;
  return `${JSON.stringify(report)}\n`;
}

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false });
  const map = await readPortMapOrExplain(() => createPortReader().readAll(), 'ports');
  if (map === null) return EXIT_FAILURE;
  const rows = describeListeners(map.listeners, await createEntryLookup());
  if (values.json === true) {
    await writeOut(process.stdout, toJson(rows, map));
    return EXIT_OK;
  }
  await writeText(process.stdout, rows.length === 0 ? 'no process of yours listens on a port\n' : formatRows(rows));
  const note = hiddenSocketsNote(map);
  if (note !== null) await writeText(process.stderr, note);
  return EXIT_OK;
}

export const portsCommand: CliCommand = {
  summary: 'show which process listens on which port (with identity and run)',
  usage: USAGE,
  main,
};
