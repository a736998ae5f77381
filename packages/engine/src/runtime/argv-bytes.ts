/**
 * Argument vectors that are not text. Node decodes its own argv as UTF-8, replacing invalid bytes
 * with U+FFFD, and `spawn` only passes strings (encoded back as UTF-8): so `printf '%s' $'\xff'`
 * would run with EF BF BD instead of FF. The kernel keeps the real bytes in /proc/self/cmdline;
 * a run whose argv holds such bytes carries them as base64 beside its display strings, and is
 * started through a `/bin/sh` shim that rebuilds each argument from octal escapes and execs it.
 */
import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';

/** Standard base64 with padding, as `Buffer#toString('base64')` writes it. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Bytes the shim writes as they are inside its single-quoted printf format; the rest as \ooo. */
const PLAIN_BYTE = /[A-Za-z0-9_./,:@+-]/;
/** After the printf output, so command substitution cannot strip the argument's trailing newlines. */
const SENTINEL = 'x';

/** The argument vector as display strings, and its bytes when one of them is not valid UTF-8. */
export interface EncodedArgv {
  readonly command: string;
  readonly args: string[];
  /** base64 of [command, ...args], each; absent when every one is valid UTF-8 (the strings are exact). */
  readonly argvBase64?: string[];
}

export function isBase64(text: string): boolean {
  return BASE64.test(text);
}

/** Display strings (U+FFFD where bytes are not UTF-8), and the bytes themselves only when needed. */
export function encodeArgv(argv: readonly Buffer[]): EncodedArgv {
  const [command, ...args] = argv.map((bytes) => bytes.toString('utf8'));
  if (command === undefined) throw new Error('encodeArgv: an argument vector needs a command');
  const exact = argv.every((bytes) => isUtf8(bytes));
  return exact ? { command, args } : { command, args, argvBase64: argv.map((bytes) => bytes.toString('base64')) };
}

export function decodeArgv(argvBase64: readonly string[]): Buffer[] {
  return argvBase64.map((text) => Buffer.from(text, 'base64'));
}

/**
 * The last `tail.length` arguments of this process as the kernel holds them (Linux), when they
 * are the ones `tail` was decoded from (each decodes to its string); else null. The tail of
 * /proc/self/cmdline is this process's own argv after the script (Node's options come before it).
 */
export function readArgvTailBytes(tail: readonly string[], cmdline: () => Buffer = readOwnCmdline): Buffer[] | null {
  if (process.platform !== 'linux' || tail.length === 0) return null;
  let bytes: Buffer;
  try {
    bytes = cmdline();
  } catch {
    return null; // No /proc here.
  }
  const entries = splitNulTerminated(bytes);
  if (entries.length < tail.length) return null;
  const found = entries.slice(entries.length - tail.length);
  return found.every((entry, index) => entry.toString('utf8') === tail[index]) ? found : null;
}

function readOwnCmdline(): Buffer {
  return readFileSync('/proc/self/cmdline');
}

/** `a\0b\0` → [a, b]: every entry ends with NUL (an empty argument is an empty entry). */
function splitNulTerminated(bytes: Buffer): Buffer[] {
  const entries: Buffer[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(0, start);
    if (end < 0) end = bytes.length;
    entries.push(bytes.subarray(start, end));
    start = end + 1;
  }
  return entries;
}

/**
 * One argument as a printf format that prints exactly its bytes (a NUL cannot be in an argv). A
 * leading `-` is escaped too: printf would take `-n`, `-c`, `--` or `-` for its own option.
 */
function printfFormat(bytes: Buffer): string {
  let format = '';
  bytes.forEach((byte, index) => {
    const char = String.fromCharCode(byte);
    const plain = byte < 0x80 && PLAIN_BYTE.test(char) && !(index === 0 && char === '-');
    format += plain ? char : `\\${byte.toString(8).padStart(3, '0')}`;
  });
  return format;
}

/**
 * `/bin/sh -c SCRIPT` that execs exactly `argv`: each argument printed by printf from octal
 * escapes (the script is ASCII, so it passes through Node's strings unchanged), the sentinel cut
 * off after the command substitution. `exec` looks the command up in PATH as spawn would.
 */
export function byteExactShim(argv: readonly Buffer[]): [string, string[]] {
  if (argv.some((bytes) => bytes.includes(0))) throw new Error('an argument cannot hold a NUL byte');
  const lines = argv.map(
    (bytes, index) => `a${index}=$(printf '${printfFormat(bytes)}${SENTINEL}'); a${index}=\${a${index}%${SENTINEL}}`,
  );
  const words = argv.map((_, index) => `"$a${index}"`).join(' ');
  return ['/bin/sh', ['-c', `${lines.join('\n')}\nexec ${words}`]];
}
