/**
 * Linux process table read straight from /proc, synchronously: measured here, sync reads beat
 * async `fs` by 2–4× for thousands of tiny files. A process that vanishes mid-read is skipped.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import type { ProcessEntry, ProcessTable } from './types.js';

const PAGE_SIZE_BYTES = 4096;

interface StatFields {
  readonly command: string;
  readonly state: string;
  readonly ppid: number;
  readonly pgid: number;
  readonly sid: number;
  readonly cpuTicks: number;
  readonly startTicks: string;
  readonly rssPages: number;
}

/** Parses `/proc/PID/stat`. `comm` may hold spaces and parentheses, so split after the last `)`. */
export function parseProcStat(text: string): StatFields | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const rest = text.slice(close + 2).split(' ');
  // rest[0] is field 3 (state); field N is rest[N - 3].
  if (rest.length < 22) return null;
  return {
    command: text.slice(open + 1, close),
    state: rest[0] ?? '?',
    ppid: Number(rest[1]),
    pgid: Number(rest[2]),
    sid: Number(rest[3]),
    cpuTicks: Number(rest[11]) + Number(rest[12]),
    startTicks: rest[19] ?? '0',
    rssPages: Number(rest[21]),
  };
}

let clockTicksPerSecond: number | undefined;
let bootTimeMs: number | undefined;

/** `sysconf(_SC_CLK_TCK)`; 100 on every mainstream Linux, asked once in case it is not. */
export function clockTicks(): number {
  if (clockTicksPerSecond === undefined) {
    try {
      clockTicksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicksPerSecond = 100;
    }
  }
  return clockTicksPerSecond;
}

export function bootTime(): number {
  if (bootTimeMs === undefined) {
    const match = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    bootTimeMs = match ? Number(match[1]) * 1000 : 0;
  }
  return bootTimeMs;
}

function readOptional<T>(read: () => T): T | null {
  try {
    return read();
  } catch {
    return null;
  }
}

/** Reads one process, or null when it is gone (or was never there). */
export function readProcEntry(pid: number): ProcessEntry | null {
  const statText = readOptional(() => readFileSync(`/proc/${pid}/stat`, 'latin1'));
  if (statText === null) return null;
  const stat = parseProcStat(statText);
  if (stat === null) return null;
  const owner = readOptional(() => statSync(`/proc/${pid}`).uid);
  if (owner === null) return null;
  const cmdline = readOptional(() => readFileSync(`/proc/${pid}/cmdline`, 'utf8')) ?? '';
  const args = cmdline.length === 0 ? [] : cmdline.replace(/\0$/, '').split('\0');
  const ticks = clockTicks();
  return {
    pid,
    startTime: stat.startTicks,
    ppid: stat.ppid,
    pgid: stat.pgid,
    sid: stat.sid,
    state: stat.state,
    uid: owner,
    command: stat.command,
    args,
    cwd: readOptional(() => readlinkSync(`/proc/${pid}/cwd`)),
    cpuTimeMs: Math.round((stat.cpuTicks * 1000) / ticks),
    rssBytes: stat.rssPages * PAGE_SIZE_BYTES,
    startedAtMs: bootTime() + Math.round((Number(stat.startTicks) * 1000) / ticks),
  };
}

export function listPids(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    const code = name.charCodeAt(0);
    if (code >= 48 && code <= 57) pids.push(Number(name));
  }
  return pids;
}

export function readProcTable(): ProcessTable {
  const entries = new Map<number, ProcessEntry>();
  for (const pid of listPids()) {
    const entry = readProcEntry(pid);
    if (entry !== null) entries.set(pid, entry);
  }
  return { entries, readAtMs: Date.now() };
}
