/** Text helpers shared by `ports` and `free-port`. */
import { type PortMap, PortsUnsupportedError } from '@treewarden/engine';
import { terminalText, writeText } from '../terminal-text.js';

/** Aligned columns; the last one is left unpadded, `rightAligned` columns are padded on the left. */
export function formatColumns(
  header: readonly string[],
  cells: readonly (readonly string[])[],
  rightAligned: ReadonlySet<number>,
): string {
  // Cells come from other users' processes: one printable line each, or the columns lie.
  const safe = cells.map((line) => line.map(terminalText));
  const widths = header.map((title, column) =>
    Math.max(title.length, ...safe.map((line) => line[column]?.length ?? 0)),
  );
  const format = (line: readonly string[]) =>
    line
      .map((cell, column) => {
        if (column === line.length - 1) return cell;
        const width = widths[column] ?? 0;
        return rightAligned.has(column) ? cell.padStart(width) : cell.padEnd(width);
      })
      .join('  ');
  return `${[format(header), ...safe.map(format)].join('\n')}\n`;
}

/** Says what the map could not attribute, or null when it attributed everything. */
export function hiddenSocketsNote(map: PortMap): string | null {
  const parts: string[] = [];
  if (map.unattributed.length > 0) {
    const ports = [...new Set(map.unattributed.map((socket) => `${socket.port}/${socket.proto}`))].join(', ');
    parts.push(`${map.unattributed.length} listening socket(s) held by processes Treewarden cannot inspect: ${ports}`);
  }
  if (map.skippedPids > 0) parts.push(`${map.skippedPids} process(es) skipped (not readable, or exited mid-read)`);
  return parts.length === 0 ? null : `treewarden: ${parts.join('; ')}\n`;
}

/** Reads the map; an unsupported platform or an unreadable table is explained on stderr (null). */
export async function readPortMapOrExplain(
  read: () => Promise<PortMap | null>,
  command: string,
): Promise<PortMap | null> {
  try {
    const map = await read();
    if (map === null)
      await writeText(
        process.stderr,
        `treewarden ${command}: no port map could be read (a socket table or lsof failed)\n`,
      );
    return map;
  } catch (error) {
    if (!(error instanceof PortsUnsupportedError)) throw error;
    await writeText(process.stderr, `treewarden ${command}: ${error.message}\n`);
    return null;
  }
}
