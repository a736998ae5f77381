/**
 * The look for escapes where orphans land reads nothing when no pid was handed out since the last
 * cookie sweep: an escape is a process created since, and that read looks only at pids after the
 * sweep's mark. The allocator's cursor is scripted here (the machine's moves with every fork of
 * every parallel test); the tree and the reads are real.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createTreeOwner } from '../../src/ownership/tree-owner.js';
import { createLinuxReader } from '../../src/table/linux-reader.js';
import type { TableReader } from '../../src/table/types.js';
import { identityOf, useProcessTracker } from '../helpers/index.js';

describe.skipIf(process.platform !== 'linux')('the escape look after a sweep', () => {
  const tracker = useProcessTracker();

  it('reads where orphans land only when a pid was allocated since the last sweep', async () => {
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    const pid = tracker.trackChild(sleeper);
    await once(sleeper, 'spawn');
    const linux = createLinuxReader({ cwd: false });
    let cursor = 1000;
    let adopterReads = 0;
    const reader: TableReader = {
      ...linux,
      lastAllocatedPid: () => cursor,
      readAdopters: async (pids, filter) => {
        adopterReads += 1;
        return linux.readAdopters?.(pids, filter) ?? null;
      },
    };
    const owner = createTreeOwner(identityOf(pid), { reader, runId: randomUUID() });
    await owner.observe();
    await owner.observeRead('adopters');
    expect(adopterReads).toBe(0);
    cursor += 1;
    await owner.observeRead('adopters');
    expect(adopterReads).toBe(1);
    // That look was a sweep: with the cursor still there, the next one reads nothing again.
    await owner.observeRead('adopters');
    expect(adopterReads).toBe(1);
    linux.close();
  });
});
