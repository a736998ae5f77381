/**
 * Pile-ups in live agent sessions through the host, on real fake-Claude trees: the snapshot's
 * session carries its alerts (the older duplicate server sets, by identity, with why), another
 * live session carries none of its processes, and trimSession judges again from a fresh
 * observation, refuses a changed or no-longer-alerted identity with nothing signalled, and ends
 * exactly the confirmed alerted ones (the newest set, the root and the other session live on).
 */
import type { CommandResult, SessionView, Snapshot } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { mcpSetsOldestFirst, type PileAgent, startPileAgent } from '../../../test-support/fake-piles.js';
import { isRunning, pollUntil, startTimeOf, useProcessTracker } from '../../../test-support/index.js';
import { EVENT_WAIT_MS, expectOk, latestSnapshot, SLOW_TEST_MS, useTestHost } from './helpers.js';

const tracker = useProcessTracker();
const makeHost = useTestHost();

function sessionOf(snapshot: Snapshot | null, agent: PileAgent): SessionView | undefined {
  return snapshot?.sessions?.find((session) => session.root.pid === agent.rootPid && session.state === 'live');
}

describe('session alerts in the host', () => {
  it(
    'shows the older duplicate sets as an alert and trims only confirmed, still alerted identities',
    async () => {
      const { host, events } = makeHost(250);
      // Three sets: past the default of nothing else (budgets and stale subagents stay quiet at this size).
      const piled = await startPileAgent(tracker, { mcpSets: 3 });
      const other = await startPileAgent(tracker, { mcpSets: 1 });
      const [oldest, older, newest] = mcpSetsOldestFirst(piled) as [number[], number[], number[]];
      const otherPids = [other.rootPid, ...mcpSetsOldestFirst(other).flat()];
      const alert = await pollUntil(
        () => {
          const latest = latestSnapshot(events);
          if (sessionOf(latest, other) === undefined) return null;
          return sessionOf(latest, piled)?.alerts?.find((found) => found.kind === 'duplicate-servers');
        },
        { deadlineMs: EVENT_WAIT_MS, description: 'both sessions, and the duplicate-servers alert, in the snapshot' },
      );
      expect([...alert.pids].sort()).toEqual([...oldest, ...older].sort());
      expect(alert.processes.map((process) => process.pid)).toEqual(alert.pids);
      expect(alert.why).toMatch(/3 sets of .* the newest \(pid \d+\) is kept/);
      const snapshot = latestSnapshot(events);
      const session = sessionOf(snapshot, piled) as SessionView;
      expect(session.alerts).toHaveLength(1);
      expect(sessionOf(snapshot, other)?.alerts).toEqual([]);
      // Live: never counted as leaks.
      expect(snapshot?.orphans.filter((orphan) => orphan.sessionId === session.id)).toEqual([]);

      const changed = alert.processes.map((process) =>
        process.pid === oldest[0] ? { ...process, startTime: `${process.startTime}9` } : process,
      );
      const kept = { pid: newest[0] as number, startTime: startTimeOf(newest[0] as number) };
      const refused = expectOk<CommandResult<'trimSession'>>(
        await host.handle({ type: 'trimSession', sessionId: session.id, targets: [...changed, kept] }),
      );
      const byPid = new Map(refused.processes.map((process) => [process.pid, process]));
      expect(byPid.get(oldest[0] as number)?.detail).toMatch(/different process/);
      expect(byPid.get(kept.pid)?.detail).toMatch(/no longer alerted/);
      // The oldest wrapper's server is named but its wrapper is not: a stranger above is never left half-ended.
      expect(isRunning(oldest[0] as number)).toBe(true);
      expect(isRunning(kept.pid)).toBe(true);

      const stillAlerted = alert.processes.filter((process) => isRunning(process.pid, process.startTime));
      const done = expectOk<CommandResult<'trimSession'>>(
        await host.handle({ type: 'trimSession', sessionId: session.id, targets: stillAlerted }),
      );
      expect(
        done.processes.map((process) => process.result).filter((r) => r !== 'killed' && r !== 'already_gone'),
      ).toEqual([]);
      for (const pid of [...oldest, ...older])
        await pollUntil(() => !isRunning(pid), { description: `pid ${pid} gone` });
      for (const pid of [piled.rootPid, ...newest, ...otherPids]) expect(isRunning(pid), `pid ${pid} ended`).toBe(true);
      await pollUntil(() => sessionOf(latestSnapshot(events), piled)?.alerts?.length === 0, {
        deadlineMs: EVENT_WAIT_MS,
        description: 'the trimmed alert to leave the snapshot',
      });
    },
    SLOW_TEST_MS,
  );

  it('refuses a trim of a session that holds no alert, signalling nothing', async () => {
    const { host } = makeHost();
    const none = expectOk<CommandResult<'trimSession'>>(
      await host.handle({ type: 'trimSession', sessionId: 'claude-code-1-1', targets: [{ pid: 1, startTime: '1' }] }),
    );
    expect(none.processes).toEqual([expect.objectContaining({ pid: 1, result: 'refused' })]);
    expect((await host.handle({ type: 'trimSession', sessionId: 'x', targets: [] })).ok).toBe(false);
  });
});
