/**
 * A process that rewrites its own argv in place (setproctitle: Chromium's zygote children,
 * postgres and nginx workers) keeps its pid, start time, comm and program text, so the identity
 * cache kept the argv it had when first seen, and the table showed it for good. A real node
 * process overwrites its argv area through /proc/self/mem on SIGUSR1 (comm stays `node`): a
 * polling reader must show the new argv within its slow rotation (UID_REFRESH_POLLS snapshots).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createLinuxReader, UID_REFRESH_POLLS } from '../../src/table/linux-reader.js';
import { pollUntil, useProcessTracker } from '../helpers/index.js';

const BEFORE = 'tw-argv-before-rewrite';
const AFTER = 'tw-argv-rewritten-now!';
/**
 * Overwrites [arg_start, arg_end) (fields 48 and 49 of /proc/self/stat) with AFTER padded with
 * NULs on SIGUSR1, without exec and without touching comm; prints "ready" once the handler is set.
 */
const REWRITE_ON_SIGNAL = `
const fs = require('node:fs');
process.on('SIGUSR1', () => {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = Number(fields[45]);
  const end = Number(fields[46]);
  const text = Buffer.alloc(end - start);
  text.write(${JSON.stringify(AFTER)});
  const mem = fs.openSync('/proc/self/mem', 'r+');
  fs.writeSync(mem, text, 0, text.length, start);
  fs.closeSync(mem);
  process.stdout.write('rewritten\\n');
});
setInterval(() => {}, 1 << 30);
process.stdout.write('ready\\n');
`;

function readArgv(pid: number): string {
  return readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ').trim();
}

describe.skipIf(process.platform !== 'linux')('an argv rewritten in place (setproctitle)', () => {
  const tracker = useProcessTracker();

  it('shows in a polling reader within its rotation, comm and start time unchanged', async () => {
    const child = spawn(process.execPath, ['-e', REWRITE_ON_SIGNAL, BEFORE], { stdio: ['ignore', 'pipe', 'ignore'] });
    const pid = tracker.trackChild(child);
    const lines: string[] = [];
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => lines.push(chunk));
    await pollUntil(() => lines.join('').includes('ready'), { description: 'the fixture to be ready' });
    const reader = createLinuxReader();
    try {
      const first = (await reader.readAll())?.entries.get(pid);
      expect(first?.args).toContain(BEFORE);
      process.kill(pid, 'SIGUSR1');
      await pollUntil(() => lines.join('').includes('rewritten'), { description: 'the argv rewrite' });
      // The kernel shows it: the rewrite is real, and the cache is what stood between.
      expect(readArgv(pid)).toBe(AFTER);
      let seenAfter: number | null = null;
      let last: readonly string[] | undefined;
      for (let snapshot = 1; snapshot <= UID_REFRESH_POLLS + 1; snapshot += 1) {
        last = (await reader.readAll())?.entries.get(pid)?.args;
        if (last?.[0] === AFTER) {
          seenAfter = snapshot;
          break;
        }
      }
      expect(last).toEqual([AFTER]);
      expect(seenAfter).not.toBeNull();
      const now = (await reader.readAll())?.entries.get(pid);
      expect(now?.command).toBe(first?.command);
      expect(now?.startTime).toBe(first?.startTime);
    } finally {
      reader.close?.();
    }
  });
});
