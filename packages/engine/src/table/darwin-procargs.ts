/**
 * macOS: argv and environment of a process from `sysctl({CTL_KERN, KERN_PROCARGS2, pid})`. The
 * buffer is: argc (int32, host byte order), the exec path (NUL-terminated), NUL padding, argc argv
 * strings, then the environment strings, each NUL-terminated, until an empty string or the end
 * (Apple's `ps` reads it the same way). The parser is pure and tested on hand-built buffers; the
 * koffi call runs only on darwin and has NOT run on a Mac yet.
 */
import { createRequire } from 'node:module';

export const CTL_KERN = 1;
export const KERN_ARGMAX = 8;
export const KERN_PROCARGS2 = 49;
/** Used when KERN_ARGMAX cannot be read (the macOS default is 1 MiB). */
export const DEFAULT_ARGMAX_BYTES = 1024 * 1024;
const ARGC_BYTES = 4;

export interface ProcArgs {
  readonly argc: number;
  readonly execPath: string;
  readonly argv: readonly string[];
  readonly env: readonly string[];
}

export class ProcArgsFormatError extends Error {
  override readonly name = 'ProcArgsFormatError';
}

function readCString(buffer: Buffer, offset: number): { text: string; next: number } | null {
  const end = buffer.indexOf(0, offset);
  if (end < 0) return null;
  return { text: buffer.toString('utf8', offset, end), next: end + 1 };
}

export function parseProcArgs2(buffer: Buffer, littleEndian = true): ProcArgs {
  if (buffer.length < ARGC_BYTES) throw new ProcArgsFormatError(`buffer of ${buffer.length} bytes holds no argc`);
  const argc = littleEndian ? buffer.readInt32LE(0) : buffer.readInt32BE(0);
  // Each argument takes at least its NUL: more than the bytes left is a corrupt or foreign buffer.
  if (argc < 0 || argc > buffer.length - ARGC_BYTES)
    throw new ProcArgsFormatError(`argc ${argc} does not fit a ${buffer.length}-byte buffer`);
  const exec = readCString(buffer, ARGC_BYTES);
  if (exec === null) throw new ProcArgsFormatError('the exec path is not NUL-terminated');
  let offset = exec.next;
  while (offset < buffer.length && buffer[offset] === 0) offset += 1;
  const argv: string[] = [];
  for (let index = 0; index < argc; index += 1) {
    const arg = readCString(buffer, offset);
    if (arg === null) throw new ProcArgsFormatError(`argument ${index} of ${argc} is missing or not NUL-terminated`);
    argv.push(arg.text);
    offset = arg.next;
  }
  const env: string[] = [];
  while (offset < buffer.length) {
    const variable = readCString(buffer, offset);
    if (variable === null || variable.text === '') break;
    env.push(variable.text);
    offset = variable.next;
  }
  return { argc, execPath: exec.text, argv, env };
}

interface KoffiLike {
  load(path: string): { func(signature: string): (...args: unknown[]) => number };
}

type Sysctl = (
  mib: Int32Array,
  length: number,
  out: Buffer | null,
  outLength: BigUint64Array,
  newp: null,
  newLength: number,
) => number;
let sysctl: Sysctl | null | undefined;

function loadSysctl(): Sysctl | null {
  if (sysctl !== undefined) return sysctl;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as KoffiLike;
    const libc = koffi.load('/usr/lib/libSystem.B.dylib');
    sysctl = libc.func(
      'int sysctl(_Inout_ int *name, uint namelen, _Inout_ void *oldp, _Inout_ size_t *oldlenp, void *newp, size_t newlen)',
    ) as unknown as Sysctl;
  } catch {
    sysctl = null;
  }
  return sysctl;
}

function argMax(call: Sysctl): number {
  const out = Buffer.alloc(4);
  const length = new BigUint64Array([4n]);
  return call(new Int32Array([CTL_KERN, KERN_ARGMAX]), 2, out, length, null, 0) === 0
    ? out.readInt32LE(0)
    : DEFAULT_ARGMAX_BYTES;
}

/** argv and environment of `pid` on macOS; null elsewhere, for other users' processes, or when gone. */
export function readProcArgs2(pid: number): ProcArgs | null {
  if (process.platform !== 'darwin') return null;
  const call = loadSysctl();
  if (call === null) return null;
  const size = argMax(call);
  const buffer = Buffer.alloc(size);
  const length = new BigUint64Array([BigInt(size)]);
  if (call(new Int32Array([CTL_KERN, KERN_PROCARGS2, pid]), 3, buffer, length, null, 0) !== 0) return null;
  try {
    return parseProcArgs2(buffer.subarray(0, Number(length[0])));
  } catch {
    return null;
  }
}
