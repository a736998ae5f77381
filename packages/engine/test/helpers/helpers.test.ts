import { describe, expect, it } from 'vitest';
import { isRunning, pollUntil, readReportedPids, spawnFixture, useProcessTracker } from './index.js';

describe('test helpers', () => {
  const tracker = useProcessTracker();

  it('pollUntil rejects with the description once the deadline passes', async () => {
    await expect(pollUntil(() => false, { deadlineMs: 50, description: 'never' })).rejects.toThrow(/never/);
  });

  it('pollUntil waits past an empty array (truthy, but nothing found yet)', async () => {
    let calls = 0;
    const found = await pollUntil(() => (++calls < 3 ? [] : ['found']), { intervalMs: 1, description: 'a find' });
    expect({ found, calls }).toEqual({ found: ['found'], calls: 3 });
    await expect(pollUntil(() => [], { deadlineMs: 50, description: 'nothing' })).rejects.toThrow(/nothing/);
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
