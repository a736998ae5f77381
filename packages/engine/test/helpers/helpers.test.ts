import { describe, expect, it } from 'vitest';
import { isRunning, pollUntil, readReportedPids, spawnFixture, useProcessTracker } from './index.js';

describe('test helpers', () => {
  const tracker = useProcessTracker();

  it('pollUntil rejects with the description once the deadline passes', async () => {
    await expect(pollUntil(() => false, { deadlineMs: 50, description: 'never' })).rejects.toThrow(/never/);
  });

  it('tracks reported pids across setsid and ends them at cleanup', async () => {
    const fixture = spawnFixture(tracker, 'setsid-escape.mjs', [], { detached: true });
    const [escaper] = await readReportedPids(tracker, fixture.reportFile, 2);
    const escaped = escaper?.role === 'escaper' ? (escaper.child as number) : undefined;
    expect(escaped).toBeTypeOf('number');
    expect(isRunning(escaped as number)).toBe(true);
    expect(await tracker.cleanup()).toEqual([]);
    expect(isRunning(escaped as number)).toBe(false);
  });
});
