/**
 * Pure parsers for the Windows process listings: the PowerShell CIM query's JSON and, as the
 * fallback, `wmic process … /format:csv`. Identity is the creation time as a FILETIME (100 ns
 * ticks since 1601, decimal string), the same from both sources, so switching source never
 * turns a known process into a "recycled" one.
 *
 * Windows has no process groups, sessions in the POSIX sense, states or numeric uids: each
 * process is its own group (pgid = pid), `sid` is the Windows session id, `state` is `?` and
 * `uid` is -1 ("not reported").
 */
import type { ProcessEntry, ProcessTable } from './types.js';

/** FILETIME of the Unix epoch. */
const FILETIME_EPOCH = 116_444_736_000_000_000n;
const TICKS_PER_MS = 10_000n;

export function filetimeToEpochMs(filetime: string): number {
  return Number((BigInt(filetime) - FILETIME_EPOCH) / TICKS_PER_MS);
}

/** WMI datetime ("20261130072850.123456+060", local time, offset in minutes) as a FILETIME string. */
export function wmiDateToFiletime(text: string): string | null {
  const match = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})\.(\d{6})([+-]\d{3})$/.exec(text.trim());
  if (match === null) return null;
  const [, year, month, day, hours, minutes, seconds, micros, offset] = match.map(Number) as number[];
  const utcMs = Date.UTC(year ?? 0, (month ?? 1) - 1, day, hours, minutes, seconds) - (offset ?? 0) * 60_000;
  const epochMicros = BigInt(utcMs) * 1000n + BigInt(micros ?? 0);
  return (epochMicros * 10n + FILETIME_EPOCH).toString();
}

/** Splits a command line the way CommandLineToArgvW does (quotes, and backslashes before quotes). */
export function splitWindowsCommandLine(line: string): string[] {
  const args: string[] = [];
  let current = '';
  let inQuotes = false;
  let started = false;
  for (let i = 0; i < line.length; i += 1) {
    const char = line[i];
    if (char === '\\') {
      let slashes = 0;
      while (line[i] === '\\') {
        slashes += 1;
        i += 1;
      }
      if (line[i] === '"') {
        current += '\\'.repeat(Math.floor(slashes / 2));
        if (slashes % 2 === 1) current += '"';
        else inQuotes = !inQuotes;
      } else {
        current += '\\'.repeat(slashes);
        i -= 1;
      }
      started = true;
    } else if (char === '"') {
      inQuotes = !inQuotes;
      started = true;
    } else if ((char === ' ' || char === '\t') && !inQuotes) {
      if (started) args.push(current);
      current = '';
      started = false;
    } else {
      current += char;
      started = true;
    }
  }
  if (started) args.push(current);
  return args;
}

/** One process as both sources describe it, before it becomes a ProcessEntry. */
export interface Win32ProcessRow {
  readonly pid: number;
  readonly ppid: number;
  readonly creationFiletime: string;
  readonly name: string;
  readonly commandLine: string | null;
  readonly sessionId: number;
  readonly workingSetBytes: number;
  readonly cpu100ns: number;
}

export function toEntry(row: Win32ProcessRow): ProcessEntry {
  const args = row.commandLine ? splitWindowsCommandLine(row.commandLine) : [row.name];
  return {
    pid: row.pid,
    startTime: row.creationFiletime,
    ppid: row.ppid,
    pgid: row.pid,
    sid: row.sessionId,
    state: '?',
    uid: -1,
    command: row.name,
    args,
    cwd: null,
    cpuTimeMs: Math.round(row.cpu100ns / 10_000),
    rssBytes: row.workingSetBytes,
    startedAtMs: filetimeToEpochMs(row.creationFiletime),
  };
}

/** Rows without a creation time (System Idle, System) cannot carry an identity and are left out. */
export function rowsToTable(rows: readonly Win32ProcessRow[], readAtMs = Date.now()): ProcessTable | null {
  const entries = new Map<number, ProcessEntry>();
  for (const row of rows) {
    if (row.creationFiletime !== '0') entries.set(row.pid, toEntry(row));
  }
  return entries.size === 0 ? null : { entries, readAtMs };
}
