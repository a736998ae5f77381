import { statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { killTree } from '../../src/kill/kill-tree.js';
import {
  isRunning,
  makeTempDir,
  pollUntil,
  readReportedPids,
  spawnFixture,
  startTimeOf,
  useProcessTracker,
} from '../helpers/index.js';

/** Long enough for several heartbeats (50 ms apart) on a loaded machine. */
const QUIET_CHECK_MS = 400;

describe('killTree on real trees', () => {
  const tracker = useProcessTracker();

  it('ends a grandchild heartbeat: the file stops growing after the kill', async () => {
    const beat = join(makeTempDir(), 'beat');
    const tree = spawnFixture(tracker, 'spawn-children.mjs', ['1', 'spawn-children.mjs', '2', 'heartbeat.mjs', beat], {
      detached: true,
    });
    const reports = await readReportedPids(tracker, tree.reportFile, 2, { role: 'heartbeat' });
    await pollUntil(() => statSync(beat).size > 0, { description: 'first heartbeat' });
    const outcome = await killTree({ pid: tree.pid, startTime: startTimeOf(tree.pid) }, { graceMs: 200 });
    expect(outcome.result).toBe('killed');
    expect(outcome.survivors).toEqual([]);
    for (const report of reports) expect(isRunning(report.pid)).toBe(false);
    const size = statSync(beat).size;
    await delay(QUIET_CHECK_MS);
    expect(statSync(beat).size).toBe(size);
    expect(outcome.timeline.map((e) => e.action)).toContain('SIGTERM');
  });
});
