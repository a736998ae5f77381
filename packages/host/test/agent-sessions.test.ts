/**
 * Agent sessions through the host, on real fake-agent trees: a live session shows in the snapshot
 * with its roles and totals; once its root is killed every survivor reaches the snapshot's one
 * orphan list (kind "agent", with evidence) within LEAK_VISIBLE_MS; a clean-up that names a changed
 * identity refuses that subtree and signals nothing there; the confirmed clean-up leaves none alive.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { exitWatchAvailable, readProcEntry } from '@treewarden/engine';
import type { CommandResult, OrphanView, SessionView, Snapshot } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { type FakeAgent, pidOf, startFakeAgent } from '../../../test-support/fake-agents.js';
import { isRunning, pollUntil, useProcessTracker } from '../../../test-support/index.js';
import { EVENT_WAIT_MS, expectOk, latestSnapshot, SLOW_TEST_MS, useTestHost } from './helpers.js';

/**
 * How long this test waits for a dead session's leaks. The speed target (≤ 500 ms from death to
 * report) is measured in the bench; here the wait only has to outlast a poll on a machine the
 * full parallel suite saturates (one such run took 10 s to show the session's roles at all).
 */
const LEAK_VISIBLE_MS = 8000;

const tracker = useProcessTracker();
const makeHost = useTestHost();

function sessionOf(snapshot: Snapshot | null, agent: FakeAgent): SessionView | undefined {
  return snapshot?.sessions?.find((session) => session.root.pid === agent.rootPid);
}

function agentLeaksOf(snapshot: Snapshot | null, sessionId: string): OrphanView[] {
  return snapshot?.orphans.filter((orphan) => orphan.kind === 'agent' && orphan.sessionId === sessionId) ?? [];
}

function describeSurvivor(snapshot: Snapshot | null, agent: FakeAgent, pid: number): string {
  const role = agent.reports.find((report) => report.pid === pid)?.role ?? 'unreported';
  const member = sessionOf(snapshot, agent)?.processes.find((node) => node.pid === pid);
  const orphan = snapshot?.orphans.find((candidate) => candidate.process.pid === pid);
  const entry = readProcEntry(pid);
  const where = orphan
    ? `orphan of kind ${orphan.kind} (session ${String(orphan.sessionId)})`
    : member
      ? `session member (${member.role})`
      : 'not shown';
  return `${pid} ${role}: ${where}, ${entry ? `state ${entry.state}, ppid ${entry.ppid}` : 'gone'}, session ${sessionOf(snapshot, agent)?.state ?? 'absent'}`;
}

describe('agent sessions in the host', () => {
  /** The /proc files this process holds open, by what their links name. */
  function openProcLinks(): string[] {
    return readdirSync('/proc/self/fd').flatMap((fd) => {
      try {
        return [readlinkSync(`/proc/self/fd/${fd}`)];
      } catch {
        return []; // Closed since the listing (the listing's own fd, say).
      }
    });
  }

  for (const exitEvents of [true, false])
    it(
      `shows a session's leak at once when its root dies, long before the next scheduled poll (${exitEvents ? 'exits told by pidfd' : 'roots looked at by timer'})`,
      async () => {
        // Polls 30 s apart: only the exit watch (or the look at the live roots) brings the leak sooner.
        const pollIntervalMs = 30_000;
        const agent = await startFakeAgent(tracker, 'claude');
        const { events } = makeHost(pollIntervalMs, exitEvents);
        const live = await pollUntil(() => sessionOf(latestSnapshot(events), agent), {
          deadlineMs: EVENT_WAIT_MS,
          description: 'the fake Claude session in the first snapshot',
        });
        if (exitEvents && process.platform === 'linux' && exitWatchAvailable()) {
          // Told by the kernel: the live root is held as a pidfd. (Whether its stat file is open
          // says nothing here: the host's full table reads hold every process's stat, and test
          // files share this worker's fd table.)
          await pollUntil(() => openProcLinks().includes('anon_inode:[pidfd]'), {
            deadlineMs: EVENT_WAIT_MS,
            description: 'a pidfd held for the live root',
          });
        }
        const polls = events.filter((event) => event.type === 'snapshot').length;
        process.kill(agent.rootPid, 'SIGKILL');
        const survivors = agent.pids.filter((pid) => pid !== agent.rootPid);
        await pollUntil(
          () => {
            const pids = new Set(agentLeaksOf(latestSnapshot(events), live.id).map((orphan) => orphan.process.pid));
            return survivors.every((pid) => pids.has(pid));
          },
          {
            deadlineMs: pollIntervalMs / 3,
            description: `every survivor of ${live.id}, before the next scheduled poll`,
          },
        );
        // One early poll, not a storm of them.
        expect(events.filter((event) => event.type === 'snapshot').length - polls).toBeLessThanOrEqual(3);
      },
      SLOW_TEST_MS,
    );

  it(
    'shows a live session with roles, its leaks after the root dies, and cleans only what was confirmed',
    async () => {
      const { host, events } = makeHost(250);
      const agent = await startFakeAgent(tracker, 'claude');
      const roles = ['mcp-server', 'shell', 'dev-server', 'subagent'];
      const live = await pollUntil(
        () => {
          const session = sessionOf(latestSnapshot(events), agent);
          const seen = new Set(session?.processes.map((node) => node.role));
          return session !== undefined && roles.every((role) => seen.has(role as never)) ? session : null;
        },
        { deadlineMs: EVENT_WAIT_MS, description: 'the fake Claude session with all its roles' },
      );
      expect(live.agent).toBe('claude-code');
      expect(live.state).toBe('live');
      expect(live.processes[0]).toMatchObject({ pid: agent.rootPid, role: 'root' });
      expect(live.rssBytes).toBe(live.processes.reduce((sum, node) => sum + node.rssBytes, 0));
      expect(live.rssBytes).toBeGreaterThan(0);
      // The dev server's port, as the fixture reported it once listening.
      const devPort = agent.reports.find((report) => report.role === 'dev-server')?.port;
      const devNode = live.processes.find((node) => node.role === 'dev-server');
      expect(devNode?.listening?.map((socket) => socket.port)).toEqual([devPort]);
      // A live session's members are never leaks.
      expect(agentLeaksOf(latestSnapshot(events), live.id)).toEqual([]);

      const survivors = agent.pids.filter((pid) => pid !== agent.rootPid);
      process.kill(agent.rootPid, 'SIGKILL');
      await pollUntil(() => !isRunning(agent.rootPid), { description: 'the fake Claude root to die' });
      const leaks = await pollUntil(
        () => {
          const snapshot = latestSnapshot(events);
          const found = agentLeaksOf(snapshot, live.id);
          const pids = new Set(found.map((orphan) => orphan.process.pid));
          const missing = survivors.filter((pid) => !pids.has(pid));
          if (missing.length === 0) return found;
          // Said in the timeout error: what the last snapshot made of each survivor not yet shown.
          throw new Error(`not yet leaks: ${missing.map((pid) => describeSurvivor(snapshot, agent, pid)).join('; ')}`);
        },
        { deadlineMs: LEAK_VISIBLE_MS, description: `every survivor of ${live.id} in the snapshot's orphans` },
      );
      const snapshot = latestSnapshot(events);
      expect(snapshot?.counts.leaked).toBe(snapshot?.orphans.length);
      for (const orphan of leaks) {
        expect(orphan).toMatchObject({ agent: 'claude-code', runId: null, leaseId: null });
        expect(orphan.reasons.length).toBeGreaterThan(1);
        expect(orphan.markersOnly).toBeUndefined();
      }
      expect(sessionOf(snapshot, agent)?.state).toBe('ended');

      // The dev server as the user saw it, but with another start time: its subtree is refused whole.
      const devServer = pidOf(agent, 'dev-server');
      const targets = leaks.map(({ process: node }) => ({ pid: node.pid, startTime: node.startTime }));
      const stale = targets.map((t) => (t.pid === devServer ? { ...t, startTime: `${t.startTime}9` } : t));
      const refused = expectOk<CommandResult<'cleanAgentLeaks'>>(
        await host.handle({ type: 'cleanAgentLeaks', sessionId: live.id, targets: stale }),
      );
      expect(refused.processes.find((p) => p.pid === devServer)?.result).toBe('refused');
      expect(isRunning(devServer)).toBe(true);

      const stillLeaked = survivors.filter((pid) => isRunning(pid));
      const confirmed = targets.filter((t) => stillLeaked.includes(t.pid));
      const cleaned = expectOk<CommandResult<'cleanAgentLeaks'>>(
        await host.handle({ type: 'cleanAgentLeaks', sessionId: live.id, targets: confirmed }),
      );
      expect(cleaned.processes.map((p) => p.result).filter((r) => r !== 'killed' && r !== 'already_gone')).toEqual([]);
      for (const pid of survivors) {
        const entry = readProcEntry(pid);
        expect(entry === null || entry.state === 'Z', `pid ${pid} survived the clean-up`).toBe(true);
      }
      await pollUntil(() => agentLeaksOf(latestSnapshot(events), live.id).length === 0, {
        deadlineMs: EVENT_WAIT_MS,
        description: 'the cleaned leaks to leave the snapshot',
      });
    },
    SLOW_TEST_MS,
  );

  it('refuses to clean a process that is not leaked (pid 1), and rejects a request that names no identities', async () => {
    const { host } = makeHost();
    const bad = await host.handle({ type: 'cleanAgentLeaks', targets: [{ pid: -1, startTime: '' }] });
    expect(bad.ok).toBe(false);
    // No "clean everything": a clean-up always names the identities the user confirmed.
    expect((await host.handle({ type: 'cleanAgentLeaks' })).ok).toBe(false);
    expect((await host.handle({ type: 'cleanAgentLeaks', targets: [] })).ok).toBe(false);
    const none = expectOk<CommandResult<'cleanAgentLeaks'>>(
      await host.handle({
        type: 'cleanAgentLeaks',
        sessionId: 'claude-code-1-1',
        targets: [{ pid: 1, startTime: '1' }],
      }),
    );
    // pid 1 is never leaked: refused (or its start time differs), never signalled.
    expect(none.processes).toEqual([expect.objectContaining({ pid: 1, result: 'refused' })]);
  });
});
