/**
 * The freeze and the resume are their own timeline actions, logged when they are sent: `stop`
 * (SIGSTOP, with the pids it froze) before the forced signal, `continue` (SIGCONT) when a kill
 * that could not end the tree resumes what it froze; `observe` stays a read.
 */
import { describe, expect, it } from 'vitest';
import { killTree } from '../../src/kill/kill-tree.js';
import type { KillOutcome } from '../../src/kill/types.js';
import { signalsSent } from '../../src/ledger/kill-record.js';
import { createSignalOps } from '../../src/signal/signal-ops.js';
import type { SignalOps } from '../../src/signal/types.js';
import { readProcEntry } from '../../src/table/index.js';
import { identityOf, pollUntil, readReportedPids, spawnFixture, useProcessTracker } from '../helpers/index.js';

/** Bound on the one attempt's wait for a SIGKILL that (in the second case) is never sent. */
const WITHHELD_KILL_VERIFY_MS = 300;

const sorted = (values: readonly number[] | undefined) => [...(values ?? [])].sort((a, b) => a - b);

function indexOfAction(outcome: KillOutcome, action: string): number {
  return outcome.timeline.findIndex((entry) => entry.action === action);
}

/** Real signals, except that SIGKILL is reported sent and never sent: a tree that outlives it. */
function withholdingSigkill(): SignalOps {
  const real = createSignalOps();
  return {
    signalProcess: (target, signal) => (signal === 'SIGKILL' ? 'sent' : real.signalProcess(target, signal)),
    signalGroup: (pgid, signal) => (signal === 'SIGKILL' ? 'sent' : real.signalGroup(pgid, signal)),
  };
}

describe('the kill timeline names the freeze and the resume', () => {
  const tracker = useProcessTracker();

  /** A root in its own session with two children in sessions of their own: three groups, three pids. */
  async function startThreeSessionTree(): Promise<{ root: number; pids: number[] }> {
    const tree = spawnFixture(tracker, 'spawn-children.mjs', ['--detached', '2', 'run-forever.mjs'], {
      detached: true,
    });
    const reports = await readReportedPids(tracker, tree.reportFile, 3);
    return { root: tree.pid, pids: sorted([...new Set([tree.pid, ...reports.map((r) => r.pid)])]) };
  }

  it('logs stop, with every pid it froze, before the SIGKILL, and no freeze under observe', async () => {
    const { root, pids } = await startThreeSessionTree();
    expect(pids).toHaveLength(3);
    const outcome = await killTree(identityOf(root), { graceMs: 0 });
    expect(outcome.result).toBe('killed');
    const stop = indexOfAction(outcome, 'stop');
    const kill = indexOfAction(outcome, 'SIGKILL');
    expect(stop).toBeGreaterThanOrEqual(0);
    expect(stop).toBeLessThan(kill);
    const firstStop = outcome.timeline[stop];
    expect(sorted(firstStop?.pids)).toEqual(pids);
    // Every member leads its own session, so each group is one member's pid.
    expect(sorted(firstStop?.groups)).toEqual(pids);
    expect(firstStop?.detail).toBe('freeze round 1');
    expect(outcome.timeline.filter((e) => e.action === 'observe' && /SIGSTOP/.test(e.detail ?? ''))).toEqual([]);
    // A kill that ended the tree resumes nothing.
    expect(indexOfAction(outcome, 'continue')).toBe(-1);
    expect(signalsSent(outcome)).toEqual(['SIGSTOP', 'SIGKILL']);
  });

  it('logs continue, with the pids it resumed, when the frozen tree outlives the kill', async () => {
    const { root, pids } = await startThreeSessionTree();
    const outcome = await killTree(identityOf(root), {
      graceMs: 0,
      attempts: 1,
      verifyTimeoutMs: WITHHELD_KILL_VERIFY_MS,
      signals: withholdingSigkill(),
    });
    expect(outcome.result).toBe('kill_failed');
    expect(sorted(outcome.survivors.map((s) => s.pid))).toEqual(pids);
    const order = ['stop', 'SIGKILL', 'verify', 'continue'].map((action) => indexOfAction(outcome, action));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order[0]).toBeGreaterThanOrEqual(0);
    const resumed = outcome.timeline.find((e) => e.action === 'continue');
    expect(sorted(resumed?.pids)).toEqual(pids);
    // The SIGCONT really went out: no survivor is left stopped (state T).
    await pollUntil(() => pids.every((pid) => readProcEntry(pid)?.state !== 'T'), {
      description: 'every survivor resumed',
    });
    expect(signalsSent(outcome)).toEqual(['SIGSTOP', 'SIGKILL', 'SIGCONT']);
  });
});
