/**
 * Argument vectors that are not text (runtime/argv-bytes.ts): the encoding, the check of a spec's
 * bytes against its display strings, and a real worker started by the supervisor that writes the
 * argv the kernel gave it, compared byte for byte.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunSpecError, validateRunSpec } from '../../src/run/validate.js';
import { decodeArgv, encodeArgv, readArgvTailBytes } from '../../src/runtime/argv-bytes.js';
import { fixturePath, makeTempDir, removeTempDir, splitNulTerminated, useProcessTracker } from '../helpers/index.js';
import { startTracked } from '../run/run-helpers.js';

/** Every byte an argument can hold (1–255: no NUL in an argv). */
const EVERY_BYTE = Buffer.from(Array.from({ length: 255 }, (_, i) => i + 1));
/**
 * The arguments under test: invalid bytes only, trailing newlines, empty, every byte, UTF-8 as a
 * control, and arguments a shell's printf would take for its own options (`-n`, `-c`, `--`, `-`).
 */
const ODD_ARGS: readonly Buffer[] = [
  Buffer.from([0xff, 0xfe]),
  Buffer.from('line\n\n'),
  Buffer.alloc(0),
  EVERY_BYTE,
  Buffer.from('zoë ☃ 𝄞'),
  Buffer.from("it's 100% $HOME `x` \\n"),
  Buffer.from('-n'),
  Buffer.from('-c'),
  Buffer.from('--'),
  Buffer.from('-'),
  Buffer.from('-v\xff', 'latin1'),
];

describe('encodeArgv', () => {
  it('keeps only the strings when every argument is UTF-8', () => {
    expect(encodeArgv([Buffer.from('echo'), Buffer.from('zoë'), Buffer.alloc(0)])).toEqual({
      command: 'echo',
      args: ['zoë', ''],
    });
  });

  it('adds the bytes as base64 when one is not, and they decode to the same bytes', () => {
    const encoded = encodeArgv([Buffer.from('printf'), ...ODD_ARGS]);
    expect(encoded.args[0]).toBe('\uFFFD\uFFFD');
    expect(decodeArgv(encoded.argvBase64 ?? [])).toEqual([Buffer.from('printf'), ...ODD_ARGS]);
  });
});

describe('readArgvTailBytes', () => {
  const cmdline = Buffer.concat([
    Buffer.from('node\0main.js\0run\0--\0printf\0'),
    Buffer.from([0xff, 0]),
    Buffer.from('\0'),
  ]);

  it('returns the kernel bytes of the tail that decodes to the given strings', () => {
    expect(readArgvTailBytes(['printf', '\uFFFD', ''], () => cmdline)).toEqual([
      Buffer.from('printf'),
      Buffer.from([0xff]),
      Buffer.alloc(0),
    ]);
  });

  it('returns null when the tail is not what Node decoded (a changed title, a different argv)', () => {
    expect(readArgvTailBytes(['echo', '\uFFFD', ''], () => cmdline)).toBeNull();
    expect(readArgvTailBytes(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], () => cmdline)).toBeNull();
  });
});

describe('validateRunSpec with argvBase64', () => {
  const bytes = [Buffer.from('printf'), Buffer.from([0xff])];
  const base64 = bytes.map((b) => b.toString('base64'));

  it('accepts bytes that decode to the display strings', () => {
    expect(() => validateRunSpec({ command: 'printf', args: ['\uFFFD'], argvBase64: base64 })).not.toThrow();
  });

  it('refuses bytes that are not the display, a wrong count, a NUL, or text that is not base64', () => {
    const refused = [
      { command: 'printf', args: ['x'], argvBase64: base64 },
      { command: 'printf', args: ['\uFFFD', 'y'], argvBase64: base64 },
      { command: 'printf', args: ['\uFFFD\0'], argvBase64: ['cHJpbnRm', Buffer.from([0xff, 0]).toString('base64')] },
      { command: 'printf', args: ['\uFFFD'], argvBase64: ['cHJpbnRm', 'not base64!'] },
    ];
    for (const spec of refused) expect(() => validateRunSpec(spec)).toThrow(RunSpecError);
  });
});

describe.skipIf(process.platform !== 'linux')('a run with argvBase64', () => {
  const tracker = useProcessTracker();

  it('starts the worker with exactly those bytes, trailing newlines, empty and invalid arguments included', async () => {
    const out = makeTempDir('tw-argv-');
    try {
      const argv = [Buffer.from(process.execPath), Buffer.from(fixturePath('proc-self-probe.mjs')), ...ODD_ARGS];
      const encoded = encodeArgv(argv);
      expect(encoded.argvBase64).toBeDefined();
      const run = startTracked(tracker, { ...encoded, env: { TW_PROBE_OUT: out } });
      const outcome = await run.outcome;
      expect(outcome.classification).toBe('ok');
      expect(splitNulTerminated(readFileSync(join(out, 'cmdline')))).toEqual(argv);
    } finally {
      removeTempDir(out);
    }
  });

  it('is still missing_binary, not a shell exit 127, when the command (not UTF-8) is not there', async () => {
    const missing = encodeArgv([
      Buffer.concat([Buffer.from('/nonexistent-tw-'), Buffer.from([0xff])]),
      Buffer.from('x'),
    ]);
    const outcome = await startTracked(tracker, missing).outcome;
    expect(outcome.classification).toBe('missing_binary');
  });
});
