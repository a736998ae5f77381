/**
 * macOS (and BSD) table through a bounded `ps`. macOS `ps` has no session-id column (`sess` is a
 * kernel pointer, zeroed for privacy), so `sid` is 0 ("not reported"); it has no cwd either.
 * `command` is argv joined by spaces, so argv is split on whitespace: an argument that itself
 * holds a space comes back as two. Identity is `lstart` (one-second resolution).
 */
import { type BoundedInspectorOptions, runBoundedInspector, type SpawnInspector, spawnCommand } from './inspector.js';
import { filterTrees } from './trees.js';
import type { ProcessEntry, ProcessTable, TableReader } from './types.js';

/** Every column exists on macOS and FreeBSD `ps`; `lstart` is five fixed words under LC_ALL=C. */
export const PS_ARGS = ['-axww', '-o', 'pid=,ppid=,pgid=,uid=,stat=,rss=,time=,lstart=,command='] as const;

const LINE =
  /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\d+)\s+(\S+)\s+([A-Z][a-z]{2}\s+[A-Z][a-z]{2}\s+\d{1,2}\s+\d{1,2}:\d{2}:\d{2}\s+\d{4})\s?(.*)$/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** macOS letters that have a different Linux name: U (uninterruptible) is D, I (idle > 20 s) is S. */
const STATE_ALIASES: Readonly<Record<string, string>> = { U: 'D', I: 'S' };

/** `lstart` ("Mon Nov 30 07:28:50 2026", local time) as epoch ms, or null when malformed. */
export function parseLstart(text: string): number | null {
  const [, monthName, day, clock, year] = text.split(/\s+/);
  const month = MONTHS.indexOf(monthName ?? '');
  const [hours, minutes, seconds] = (clock ?? '').split(':').map(Number);
  if (month < 0 || hours === undefined || minutes === undefined || seconds === undefined) return null;
  const ms = new Date(Number(year), month, Number(day), hours, minutes, seconds).getTime();
  return Number.isNaN(ms) ? null : ms;
}

/** `ps -o time` ("[[dd-]hh:]mm:ss.hh", minutes may pass 59) as milliseconds. */
export function parseCpuTime(text: string): number {
  const [days, clock] = text.includes('-') ? text.split('-') : ['0', text];
  const parts = (clock ?? '').split(':').map(Number);
  const total = parts.reduce((sum, part) => sum * 60 + part, 0);
  return Math.round((Number(days) * 86_400 + total) * 1000);
}

function parseLine(line: string): ProcessEntry | null {
  const match = LINE.exec(line);
  if (match === null) return null;
  const [, pid, ppid, pgid, uid, stat, rssKib, time, lstart, commandLine] = match;
  const startedAtMs = parseLstart(lstart ?? '');
  if (startedAtMs === null) return null;
  const letter = (stat ?? '?').charAt(0);
  const words = (commandLine ?? '').split(/\s+/).filter((arg) => arg.length > 0);
  // A zombie's command column is a placeholder such as `<defunct>`: it has no argv any more.
  const args = letter === 'Z' ? [] : words;
  return {
    pid: Number(pid),
    startTime: (lstart ?? '').replace(/\s+/g, ' '),
    ppid: Number(ppid),
    pgid: Number(pgid),
    sid: 0,
    state: STATE_ALIASES[letter] ?? letter,
    uid: Number(uid),
    command: (words[0] ?? '').split('/').pop() ?? '',
    args,
    cwd: null,
    cpuTimeMs: parseCpuTime(time ?? '0:00'),
    rssBytes: Number(rssKib) * 1024,
    startedAtMs,
  };
}

/** Parses the whole listing, or null when any line is not understood (never a partial table). */
export function parsePsOutput(text: string, readAtMs = Date.now()): ProcessTable | null {
  const entries = new Map<number, ProcessEntry>();
  for (const line of text.split('\n')) {
    if (line.trim().length === 0) continue;
    const entry = parseLine(line);
    if (entry === null) return null;
    entries.set(entry.pid, entry);
  }
  return entries.size === 0 ? null : { entries, readAtMs };
}

export interface DarwinReaderOptions extends BoundedInspectorOptions {
  /** Runs `ps` (tests inject a fake); defaults to `/bin/ps` with PS_ARGS and LC_ALL=C. */
  readonly spawnInspector?: SpawnInspector;
}

export async function readDarwinTable(options: DarwinReaderOptions = {}): Promise<ProcessTable | null> {
  const output = await runBoundedInspector(options.spawnInspector ?? spawnCommand('/bin/ps', PS_ARGS), options);
  return output === null ? null : parsePsOutput(output);
}

export function createDarwinReader(options: DarwinReaderOptions = {}): TableReader {
  return {
    platform: 'darwin',
    readAll: () => readDarwinTable(options),
    readTrees: async (rootPids) => {
      const table = await readDarwinTable(options);
      return table === null ? null : filterTrees(table, rootPids);
    },
  };
}
