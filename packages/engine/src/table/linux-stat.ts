/**
 * The cheap, per-poll part of a Linux read: list /proc and read `/proc/PID/stat` into one reused
 * buffer (open + read + close, three syscalls; `readFileSync` adds an fstat and a second read to
 * find EOF and allocates per call, which made it ~1.7× slower for 5,000 tiny files here).
 */
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import type { HeldStats, HeldTreeFiles } from './held-stats.js';

/** Large enough for any stat line (52 numeric fields + a 64-byte comm) and most `children` lists. */
const READ_BUFFER_BYTES = 16 * 1024;
const readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);

export interface StatFields {
  readonly command: string;
  readonly state: string;
  readonly ppid: number;
  readonly pgid: number;
  readonly sid: number;
  readonly cpuTicks: number;
  /** cutime + cstime (fields 16, 17): CPU of children this process waited for. */
  readonly childCpuTicks: number;
  readonly startTicks: string;
  readonly rssPages: number;
  /** Field 9 (PF_* bits); PF_KTHREAD marks kernel threads, whose argv is always empty. */
  readonly flags: number;
  /** Field 20; 1 for a single-threaded process, which lets the tree walk skip listing its tasks. */
  readonly numThreads: number;
  /**
   * Field 26, startcode: where the program's text begins. An exec maps a new program, so it moves
   * even when pid, start time and comm stay (a `chromium` script exec'ing the `chromium` binary).
   * 0 where the kernel hides it (another user's process, a kernel thread).
   */
  readonly codeStart: number;
  /**
   * Field 48, arg_start: where argv lies in the process's memory. An exec builds a new stack at a
   * random address (ASLR), so it moves even where startcode cannot: a non-PIE binary (Node's and
   * Python's builds here) exec'ing itself maps its text at the same fixed address, and a child
   * read between fork and exec (its parent's argv) looked unchanged after it. 0 where hidden or
   * missing (another user's process, a kernel thread, a kernel before 3.5).
   */
  readonly argStart: number;
}

const OPEN_PAREN = 0x28;
const CLOSE_PAREN = 0x29;
const SPACE = 0x20;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
/** The stat fields a line must have: up to startcode (26). */
const LAST_FIELD = 26;
/** The last field read where the kernel shows it: arg_start (48). */
const ARG_START_FIELD = 48;

/**
 * Parses the bytes of `/proc/PID/stat` in place: no decoded copy of the line and no array of 50
 * field strings (those were most of the JS time of a snapshot). `comm` may hold spaces and
 * parentheses, so the fields start after the last `)`; only comm (UTF-8, invalid bytes become
 * U+FFFD), state and the start time become strings.
 */
export function parseStatBytes(bytes: Buffer, length: number = bytes.length): StatFields | null {
  const open = bytes.indexOf(OPEN_PAREN);
  const close = bytes.lastIndexOf(CLOSE_PAREN, length - 1);
  if (open < 0 || close < open || close + 2 >= length) return null;
  const numbers = statNumbers;
  let state = '?';
  let startTicks = '0';
  let field = 3;
  let at = close + 2;
  while (field <= ARG_START_FIELD && at < length) {
    let end = at;
    while (end < length && bytes[end] !== SPACE) end += 1;
    if (field === 3) state = end === at + 1 ? stateLetter(bytes[at] ?? 0) : bytes.toString('latin1', at, end);
    else if (field === 22) startTicks = bytes.toString('latin1', at, end);
    numbers[field] = parseDecimal(bytes, at, end);
    field += 1;
    at = end + 1;
  }
  // Fewer fields than startcode: not a stat line this parser understands.
  if (field <= LAST_FIELD) return null;
  return {
    command: bytes.toString('utf8', open + 1, close),
    state: state === '' ? '?' : state,
    ppid: numbers[4] as number,
    pgid: numbers[5] as number,
    sid: numbers[6] as number,
    flags: numbers[9] as number,
    cpuTicks: (numbers[14] as number) + (numbers[15] as number),
    childCpuTicks: (numbers[16] as number) + (numbers[17] as number),
    numThreads: numbers[20] as number,
    startTicks,
    rssPages: numbers[24] as number,
    codeStart: numbers[26] as number,
    // Counted, not looked up: a shorter line leaves the last line's value in the shared array.
    argStart: field > ARG_START_FIELD ? (numbers[ARG_START_FIELD] as number) : 0,
  };
}

/** The fields of the line being parsed; every one up to LAST_FIELD is written before it is read. */
const statNumbers = new Float64Array(ARG_START_FIELD + 1);
/** One-letter states as interned strings: no string made per process for the commonest field. */
const STATE_LETTERS = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code));

function stateLetter(code: number): string {
  return code < STATE_LETTERS.length ? (STATE_LETTERS[code] as string) : String.fromCharCode(code);
}

/** A signed decimal integer in `bytes[start, end)`; NaN for anything else (as `Number()` would). */
function parseDecimal(bytes: Buffer, start: number, end: number): number {
  const negative = bytes[start] === MINUS;
  let at = negative ? start + 1 : start;
  if (at >= end) return Number.NaN;
  let value = 0;
  for (; at < end; at += 1) {
    const digit = (bytes[at] ?? 0) - DIGIT_0;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  return negative ? -value : value;
}

/** Parses `/proc/PID/stat` text (the same parser as the bytes read by the table). */
export function parseProcStat(text: string): StatFields | null {
  return parseStatBytes(Buffer.from(text, 'utf8'));
}

/** Reads a /proc file into the shared buffer; its length, or -1 when it cannot be opened or read. */
function readShared(path: string): number {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return -1;
  }
  try {
    return readSync(fd, readBuffer, 0, READ_BUFFER_BYTES, null);
  } catch {
    return -1;
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a /proc file's bytes, or null when it cannot be opened or read. The result is a view of
 * the shared buffer when it fits (valid only until the next read), a fresh buffer otherwise.
 */
export function readProcBytes(path: string): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const length = readSync(fd, readBuffer, 0, READ_BUFFER_BYTES, null);
    if (length < READ_BUFFER_BYTES) return readBuffer.subarray(0, length);
    return Buffer.concat([readBuffer, readFileSync(fd)]);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a small /proc file as UTF-8 (invalid bytes become U+FFFD, so a odd `comm` degrades only
 * that field), or null when it cannot be opened (the process is gone, or the file is unreadable)
 * or read (ESRCH from a process that exited between open and read). A file longer than the
 * buffer (only huge `children` lists) is read whole, then decoded.
 */
export function readProcText(path: string): string | null {
  return readProcBytes(path)?.toString('utf8') ?? null;
}

/** A stat line is far shorter than the buffer, so it is parsed where it was read. */
export function readStatFields(pid: number): StatFields | null {
  const length = readShared(`/proc/${pid}/stat`);
  return length < 0 ? null : parseStatBytes(readBuffer, length);
}

/** `readStatFields` through a polling reader's held files (see held-stats.ts). */
export function readHeldStatFields(pid: number, held: HeldStats, keep: boolean): StatFields | null {
  const length = held.read(pid, readBuffer, keep);
  return length < 0 ? null : parseStatBytes(readBuffer, length);
}

/**
 * `/proc/PID/schedstat` through a polling reader's held files, as text ("runtime_ns run_delay_ns
 * timeslices"); null where none is held, the read failed, or the kernel keeps no schedule
 * statistics (it then answers "0 0 0" for every task, which would hide that a process ran).
 */
export function readHeldSchedstat(pid: number, held: HeldStats, previous?: string): string | null {
  const length = held.readSchedstat(pid, readBuffer);
  if (length <= 0) return null;
  // Most processes slept since their last read: the same bytes again return the last text itself,
  // so an idle poll makes no string per process (they lived one poll each: young-GC work).
  if (previous !== undefined && sameLatin1(readBuffer, length, previous)) return previous;
  const text = readBuffer.toString('latin1', 0, length);
  return text.startsWith('0 0 ') ? null : text;
}

/** Whether `buffer`'s first `length` bytes spell `text` (latin1: one byte per character). */
function sameLatin1(buffer: Buffer, length: number, text: string): boolean {
  if (text.length !== length) return false;
  for (let index = 0; index < length; index += 1) if (buffer[index] !== text.charCodeAt(index)) return false;
  return true;
}

/**
 * A children list through a walk's held files; null where none is held or the list fills the
 * buffer (the path read takes any length).
 */
export function readHeldChildren(pid: number, held: HeldTreeFiles): string | null {
  const length = held.readChildren(pid, readBuffer);
  return length < 0 || length >= READ_BUFFER_BYTES ? null : readBuffer.toString('latin1', 0, length);
}

/** Every numeric entry of /proc: the thread-group leaders, i.e. the processes. */
export function listPids(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    const code = name.charCodeAt(0);
    if (code >= 48 && code <= 57) pids.push(Number(name));
  }
  return pids;
}

let clockTicksPerSecond: number | undefined;
let bootTimeMs: number | undefined;

/** `AT_CLKTCK` in the aux vector: the kernel's answer to `sysconf(_SC_CLK_TCK)`. */
const AT_CLKTCK = 17n;

/**
 * `sysconf(_SC_CLK_TCK)` as the kernel handed it to this process (/proc/self/auxv), asked once;
 * 100 on every mainstream Linux. Not a `getconf` child: spawning one copies this process's
 * environment through `process.env`, quadratic in its size (seconds at 20,000 variables).
 */
export function clockTicks(): number {
  clockTicksPerSecond ??= readAuxClockTicks() ?? askGetconf() ?? 100;
  return clockTicksPerSecond;
}

/** `(type, value)` words of the aux vector, native size and byte order; null where unreadable. */
export function readAuxClockTicks(auxv: Buffer | null = readProcBytes('/proc/self/auxv')): number | null {
  if (auxv === null) return null;
  const word = process.arch.endsWith('64') ? 8 : 4;
  const little = endianness() === 'LE';
  const read = (offset: number): bigint =>
    word === 8
      ? little
        ? auxv.readBigUInt64LE(offset)
        : auxv.readBigUInt64BE(offset)
      : BigInt(little ? auxv.readUInt32LE(offset) : auxv.readUInt32BE(offset));
  for (let offset = 0; offset + 2 * word <= auxv.length; offset += 2 * word) {
    const type = read(offset);
    if (type === 0n) break;
    if (type === AT_CLKTCK) return Number(read(offset + word)) || null;
  }
  return null;
}

function askGetconf(): number | null {
  try {
    // A minimal environment: getconf needs only PATH, and a copy of process.env is quadratic.
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', env }).trim()) || null;
  } catch {
    return null;
  }
}

export function bootTime(): number {
  if (bootTimeMs === undefined) {
    const match = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    bootTimeMs = match ? Number(match[1]) * 1000 : 0;
  }
  return bootTimeMs;
}
