/**
 * `treewarden ps` as text, for people: START as wall-clock time (local), the identity's start
 * (what `kill --start` takes) as TICKS, and on a terminal each line cut to its width with `…`
 * (`--wide` keeps whole lines). Piped output is never cut: a script reading it gets every argument.
 */
import { terminalArgs, terminalText } from '../terminal-text.js';

/** The fields the table shows (the protocol's process node carries them all). */
export interface PsTextRow {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly sid: number;
  readonly state: string;
  readonly uid: number;
  readonly startTime: string;
  readonly startedAtMs: number;
  readonly command: string;
  readonly args: readonly string[];
  readonly container?: { readonly id: string; readonly name: string | null; readonly image: string | null };
  /** With `--fds`: open fds and inotify watches (absent where /proc could not be read). */
  readonly fds?: { readonly open: number; readonly inotifyWatches: number };
}

export const PS_HEADER = ['PID', 'PPID', 'PGID', 'SID', 'S', 'UID', 'START', 'TICKS', 'COMMAND'] as const;
const ELLIPSIS = '…';
/** Docker's own short form of a container id. */
const SHORT_ID_LENGTH = 12;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const two = (n: number) => String(n).padStart(2, '0');

/**
 * Local wall-clock start: `HH:MM:SS` today, `Mon DD HH:MM` earlier this year, `YYYY-MM-DD` before
 * that; `?` when the platform gave no start time (0).
 */
export function formatStart(startedAtMs: number, now: Date = new Date()): string {
  if (!(startedAtMs > 0)) return '?';
  const at = new Date(startedAtMs);
  const sameYear = at.getFullYear() === now.getFullYear();
  if (sameYear && at.getMonth() === now.getMonth() && at.getDate() === now.getDate())
    return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
  if (sameYear) return `${MONTHS[at.getMonth()]} ${two(at.getDate())} ${two(at.getHours())}:${two(at.getMinutes())}`;
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}`;
}

/** `line` cut to `width` characters (code points, so no surrogate pair is split), ending in `…`. */
export function fitLine(line: string, width: number): string {
  const chars = Array.from(line);
  if (chars.length <= width) return line;
  return `${chars.slice(0, Math.max(0, width - 1)).join('')}${ELLIPSIS}`;
}

/** How wide each line may be: a terminal's columns, or null (no cut) for pipes, files and `--wide`. */
export interface PsTextOptions {
  readonly width: number | null;
  readonly now?: Date;
  /** FDS and WATCHES columns (`ps --fds`). */
  readonly fds?: boolean;
}

/** `name (image)`, or the short id when the engine did not say; `-` outside any container. */
export function containerCell(container: PsTextRow['container']): string {
  if (container === undefined) return '-';
  const name = container.name ?? container.id.slice(0, SHORT_ID_LENGTH);
  return terminalText(container.image === null ? name : `${name} (${container.image})`);
}

export function formatPsTable(rows: readonly { row: PsTextRow; depth: number }[], options: PsTextOptions): string {
  // The CONTAINER column appears only when some process runs in a container: hosts without any
  // keep the classic layout.
  const withContainers = rows.some(({ row }) => row.container !== undefined);
  const withFds = options.fds === true;
  const header: readonly string[] = [
    ...PS_HEADER.slice(0, -1),
    ...(withFds ? ['FDS', 'WATCHES'] : []),
    ...(withContainers ? ['CONTAINER'] : []),
    'COMMAND',
  ];
  const cells = rows.map(({ row, depth }) => [
    String(row.pid),
    String(row.ppid),
    String(row.pgid),
    String(row.sid),
    terminalText(row.state),
    String(row.uid),
    formatStart(row.startedAtMs, options.now),
    row.startTime,
    ...(withFds ? [String(row.fds?.open ?? '-'), String(row.fds?.inotifyWatches ?? '-')] : []),
    ...(withContainers ? [containerCell(row.container)] : []),
    '  '.repeat(depth) + (row.args.length > 0 ? terminalArgs(row.args) : `[${terminalText(row.command)}]`),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((line) => line[column]?.length ?? 0)),
  );
  const last = header.length - 1;
  const format = (line: readonly string[]) => {
    const text = line.map((cell, column) => (column === last ? cell : cell.padStart(widths[column] ?? 0))).join(' ');
    return options.width === null ? text : fitLine(text, options.width);
  };
  return `${[format(header), ...cells.map(format)].join('\n')}\n`;
}
