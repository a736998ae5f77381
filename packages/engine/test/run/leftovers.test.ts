import { describe, expect, it } from 'vitest';
import { readRunCookies } from '../../src/membership/cookie.js';
import { isRunning, readReportedPids, useProcessTracker } from '../helpers/index.js';
import { nodeFixture, startTracked, useFixtureEnv } from './run-helpers.js';
import { failingKill } from './stub-owner.js';

describe('descendants left behind by a root that exits', () => {
  const tracker = useProcessTracker();
  const fixtureEnv = useFixtureEnv();

  it('are ended and listed as leftovers; the run stays ok', async () => {
    const { reportFile, env } = fixtureEnv();
    const run = startTracked(tracker, { ...nodeFixture('setsid-escape.mjs', ['--exit']), env });
    const outcome = await run.outcome;
    const [escaper] = await readReportedPids(tracker, reportFile, 1, { role: 'escaper' });
    const escaped = escaper?.child as number;
    expect(outcome.classification).toBe('ok');
    expect(outcome.leftovers.map((l) => l.pid)).toContain(escaped);
    expect(isRunning(escaped)).toBe(false);
  });

  it('are found by their cookie when it reads empty as the root exits (an execve in progress)', async () => {
    const { reportFile, env } = fixtureEnv();
    // The exact race, staged: no tree read while the root lives (the child is only findable by
    // its cookie), and each carrier's environ reads empty twice, as mid-execve, before its cookie.
    const emptyReads = new Map<number, number>();
    let runId = '';
    const readCookies = (pid: number) => {
      const cookies = readRunCookies(pid);
      if (cookies?.runId !== runId || pid === run.identity?.pid) return cookies;
      const seen = emptyReads.get(pid) ?? 0;
      emptyReads.set(pid, seen + 1);
      return seen < 2 ? null : cookies;
    };
    const run = startTracked(
      tracker,
      { ...nodeFixture('setsid-escape.mjs', ['--exit']), env },
      { readCookies, pollIntervalMs: 60_000 },
    );
    runId = run.id;
    const outcome = await run.outcome;
    const [escaper] = await readReportedPids(tracker, reportFile, 1, { role: 'escaper' });
    const escaped = escaper?.child as number;
    expect(emptyReads.get(escaped), 'its environ was read empty, then read').toBeGreaterThanOrEqual(3);
    expect(outcome.classification).toBe('ok');
    expect(outcome.leftovers.map((l) => l.pid)).toContain(escaped);
    expect(isRunning(escaped)).toBe(false);
  });

  it('are kept (and reported as kept) with keepDescendants', async () => {
    const { reportFile, env } = fixtureEnv();
    const run = startTracked(tracker, { ...nodeFixture('setsid-escape.mjs', ['--exit']), env, keepDescendants: true });
    const outcome = await run.outcome;
    const [escaper] = await readReportedPids(tracker, reportFile, 1, { role: 'escaper' });
    const escaped = escaper?.child as number;
    expect(outcome.classification).toBe('ok');
    expect(outcome.leftovers).toEqual([]);
    expect(outcome.kept?.map((k) => k.pid)).toContain(escaped);
    expect(isRunning(escaped)).toBe(true); // the tracker ends it after the test
  });

  it('turn the run into kill_failed, with survivors, when they outlive the kill', async () => {
    const { reportFile, env } = fixtureEnv();
    const run = startTracked(
      tracker,
      { ...nodeFixture('setsid-escape.mjs', ['--exit']), env },
      {
        // Scripted: the kill reports failure and signals nothing, as a tree that will not die.
        killOwner: failingKill,
      },
    );
    const outcome = await run.outcome;
    const [escaper] = await readReportedPids(tracker, reportFile, 1, { role: 'escaper' });
    const escaped = escaper?.child as number;
    expect(outcome).toMatchObject({ classification: 'kill_failed', exitCode: 0, error: 'tree outlived 2 attempts' });
    expect(outcome.leftovers.map((l) => l.pid)).toContain(escaped);
    expect(outcome.survivors.map((s) => s.pid)).toContain(escaped);
    expect(isRunning(escaped)).toBe(true); // the tracker ends it after the test
  });
});
