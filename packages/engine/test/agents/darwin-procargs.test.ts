/** The KERN_PROCARGS2 parser on hand-built buffers following the documented layout. */
import { describe, expect, it } from 'vitest';
import { ProcArgsFormatError, parseProcArgs2, readProcArgs2 } from '../../src/table/darwin-procargs.js';

function procargs(
  argc: number,
  execPath: string,
  argv: string[],
  env: string[],
  padding = 3,
  bigEndian = false,
): Buffer {
  const head = Buffer.alloc(4);
  if (bigEndian) head.writeInt32BE(argc);
  else head.writeInt32LE(argc);
  const strings = [execPath, ...Array(padding).fill(''), ...argv, ...env].map((text) => `${text}\0`).join('');
  // The kernel pads the tail of the area with NULs (and sometimes leftovers after an empty string).
  return Buffer.concat([head, Buffer.from(strings, 'utf8'), Buffer.from('\0\0junk\0', 'utf8')]);
}

describe('parseProcArgs2', () => {
  it('reads argc, the exec path, argv and the environment', () => {
    const buffer = procargs(
      3,
      '/usr/local/bin/node',
      ['node', '/opt/@anthropic-ai/claude-code/cli.js', '--resume'],
      ['HOME=/Users/u', 'CLAUDECODE=1'],
    );
    expect(parseProcArgs2(buffer)).toEqual({
      argc: 3,
      execPath: '/usr/local/bin/node',
      argv: ['node', '/opt/@anthropic-ai/claude-code/cli.js', '--resume'],
      env: ['HOME=/Users/u', 'CLAUDECODE=1'],
    });
  });

  it('keeps empty arguments and stops the environment at the first empty string', () => {
    const parsed = parseProcArgs2(procargs(2, '/bin/sh', ['sh', ''], ['A=1'], 1));
    expect(parsed.argv).toEqual(['sh', '']);
    expect(parsed.env).toEqual(['A=1']);
  });

  it('reads a big-endian argc when told the byte order', () => {
    expect(parseProcArgs2(procargs(1, '/x', ['x'], [], 0, true), false).argv).toEqual(['x']);
  });

  it('rejects truncated and corrupt buffers with a clear error instead of guessing', () => {
    expect(() => parseProcArgs2(Buffer.from([1, 0]))).toThrow(ProcArgsFormatError);
    expect(() => parseProcArgs2(procargs(1_000_000, '/x', ['x'], []))).toThrow(/argc 1000000 does not fit/);
    const unterminated = Buffer.concat([Buffer.from([1, 0, 0, 0]), Buffer.from('/bin/sh', 'utf8')]);
    expect(() => parseProcArgs2(unterminated)).toThrow(/exec path is not NUL-terminated/);
    const missingArg = Buffer.concat([Buffer.from([2, 0, 0, 0]), Buffer.from('/bin/sh\0sh\0', 'utf8')]);
    expect(() => parseProcArgs2(missingArg)).toThrow(/argument 1 of 2/);
  });

  it('is behind a platform check: null off macOS', () => {
    if (process.platform !== 'darwin') expect(readProcArgs2(process.pid)).toBeNull();
  });
});
