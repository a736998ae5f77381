/**
 * A process that drops to another user with setuid() keeps its pid, start time, comm and program
 * text, so the identity cache would keep its old uid for good. A real perl process (root here)
 * switches to nobody on SIGUSR1 without exec: a polling reader must show the new uid within its
 * slow rotation (UID_REFRESH_POLLS snapshots), whether or not the switch cost a clock tick.
 */
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createLinuxReader, UID_REFRESH_POLLS } from '../../src/table/linux-reader.js';
import { pollUntil, useProcessTracker } from '../helpers/index.js';

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
/** Drops to nobody on SIGUSR1 (no exec), prints "ready" once the handler is in place. */
const DROP_ON_SIGNAL =
  '$| = 1; $SIG{USR1} = sub { $) = "65534 65534"; $( = 65534; $> = 65534; $< = 65534; }; print "ready\\n"; sleep 1 while 1;';

describe.skipIf(!isRoot || process.platform !== 'linux')('a uid changed by setuid() without exec', () => {
  const tracker = useProcessTracker();

  it('shows in a polling reader within its uid rotation', async () => {
    const child = spawn('perl', ['-e', DROP_ON_SIGNAL], { stdio: ['ignore', 'pipe', 'ignore'] });
    const pid = tracker.trackChild(child);
    await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
    const reader = createLinuxReader();
    try {
      const first = await reader.readAll();
      expect(first?.entries.get(pid)?.uid).toBe(0);
      process.kill(pid, 'SIGUSR1');
      await pollUntil(() => statSync(`/proc/${pid}`).uid === NOBODY, { description: 'the setuid() to nobody' });
      let seenAfter: number | null = null;
      for (let snapshot = 1; snapshot <= UID_REFRESH_POLLS + 1; snapshot += 1) {
        const table = await reader.readAll();
        if (table?.entries.get(pid)?.uid === NOBODY) {
          seenAfter = snapshot;
          break;
        }
      }
      expect(seenAfter).not.toBeNull();
      // Same identity all along: the cache was not simply dropped by an exec.
      expect((await reader.readAll())?.entries.get(pid)?.startTime).toBe(first?.entries.get(pid)?.startTime);
    } finally {
      reader.close?.();
    }
  });
});
