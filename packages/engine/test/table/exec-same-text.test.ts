/**
 * An exec that keeps pid, start time, comm and startcode: a non-PIE binary (Debian's python3, as
 * Node's builds) exec'ing itself maps its text at the same fixed address. A polling reader must
 * show the new argv at its next read, not at its slow rotation: the same blind spot once kept a
 * Node child read between fork and exec (an MCP wrapper under a Node agent) at its parent's argv,
 * so a pile-up alert counted one set too few. The stack's place is random, so arg_start moves.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readProcEntry } from '../../src/table/linux-proc.js';
import { createLinuxReader } from '../../src/table/linux-reader.js';
import { readStatFields } from '../../src/table/linux-stat.js';
import { pollUntil, useProcessTracker } from '../helpers/index.js';

const PYTHON = '/usr/bin/python3';
/** ELF e_type 2 (ET_EXEC): text at a fixed address, the same after every exec. */
function isNonPie(path: string): boolean {
  if (!existsSync(path)) return false;
  const header = readFileSync(path).subarray(0, 18);
  return header.readUInt16LE(16) === 2;
}
const NON_PIE_PYTHON = isNonPie(PYTHON);
const EXEC_SELF =
  'import os, sys; sys.stdin.readline(); os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)", "after-exec"])';

describe('an exec the program text cannot show', () => {
  const tracker = useProcessTracker();

  it.skipIf(!NON_PIE_PYTHON)(
    `shows the new argv of a non-PIE program that exec'd itself at the next read${NON_PIE_PYTHON ? '' : ' (skipped: no non-PIE /usr/bin/python3)'}`,
    async () => {
      const child = spawn(PYTHON, ['-c', EXEC_SELF], { stdio: ['pipe', 'ignore', 'ignore'] });
      const pid = tracker.trackChild(child);
      const reader = createLinuxReader();
      const before = await pollUntil(
        () => {
          const entry = reader.snapshot().entries.get(pid);
          return entry?.args.some((arg) => arg.includes('readline')) ? entry : null;
        },
        { description: 'python3 waiting on stdin, through the reader' },
      );
      const textBefore = readStatFields(pid)?.codeStart;
      child.stdin?.write('\n');
      // The exec done, read afresh (not through the reader under test).
      await pollUntil(() => readProcEntry(pid)?.args.includes('after-exec') ?? null, {
        description: 'python3 to exec itself',
      });
      // What makes this case: same pid, start time, comm and program text.
      expect(readStatFields(pid)?.codeStart).toBe(textBefore);
      const after = reader.snapshot().entries.get(pid);
      expect(after?.startTime).toBe(before.startTime);
      expect(after?.command).toBe(before.command);
      expect(after?.args).toContain('after-exec');
      reader.close();
    },
  );
});
