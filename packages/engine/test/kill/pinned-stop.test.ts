/**
 * A kill without a grace period, of a tree its owner's reader walked (a supervised run's refresh),
 * sends its first SIGSTOP through the pidfds that walk pinned to the members, before any read: one
 * per member, no group. The first look is then the freeze's check read: a member forked since the
 * walk is found under its stopped parent and stopped in round 2, revalidated on that read. Without
 * a walk (a kill of a tree named by identity) nothing is pinned and the freeze reads first.
 * What a pinned pidfd does with a recycled pid is in table/held-tree-files.test.ts.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { killOwnedTree } from '../../src/kill/owner-kill.js';
import { signalsSent } from '../../src/ledger/kill-record.js';
import { createTreeOwner } from '../../src/ownership/tree-owner.js';
import { ownedTreeRefresh } from '../../src/run/observe-loop.js';
import { readProcEntry } from '../../src/table/index.js';
import { readChildPids } from '../../src/table/linux-children.js';
import { identityOf, pollUntil, readReportedPids, spawnFixture, useProcessTracker } from '../helpers/index.js';

const sorted = (values: readonly number[] | undefined) => [...(values ?? [])].sort((a, b) => a - b);
const PINNED_ROUND = 'freeze round 1 (pinned pidfds)';
const NOBODY = 65534;

function isGone(pid: number, startTime: string): boolean {
  const entry = readProcEntry(pid);
  return entry === null || entry.startTime !== startTime || entry.state === 'Z' || entry.state === 'X';
}

describe.skipIf(process.platform !== 'linux')('the first freeze round through pinned pidfds', () => {
  const tracker = useProcessTracker();

  it('stops every member one by one before the first look, then kills the tree', async () => {
    const tree = spawnFixture(tracker, 'spawn-children.mjs', ['--detached', '2', 'run-forever.mjs'], {
      detached: true,
    });
    const reports = await readReportedPids(tracker, tree.reportFile, 3);
    const members = sorted([...new Set([tree.pid, ...reports.map((r) => r.pid)])]);
    const identities = members.map(identityOf);
    const owner = createTreeOwner(identityOf(tree.pid));
    await owner.observe();
    await ownedTreeRefresh(owner)();

    const outcome = await killOwnedTree(owner, { graceMs: 0 });

    expect(outcome.result).toBe('killed');
    const [first, second] = outcome.timeline;
    expect(first?.action).toBe('stop');
    expect(first?.detail).toBe(PINNED_ROUND);
    expect(sorted(first?.pids)).toEqual(members);
    expect(first?.groups).toBeUndefined();
    expect(second?.action).toBe('observe');
    // Converged at once: nothing was born since the walk.
    expect(outcome.timeline.filter((entry) => entry.action === 'stop')).toHaveLength(1);
    expect(signalsSent(outcome)).toEqual(['SIGSTOP', 'SIGKILL']);
    for (const identity of identities) expect(isGone(identity.pid, identity.startTime)).toBe(true);
  });

  it('finds a child forked since the walk under its stopped parent and stops it in round 2', async () => {
    // Its own session; forks a sleeper only when told, after the owner's walk.
    const shell = spawn('/bin/sh', ['-c', 'read go; sleep 300 & wait'], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    const shellPid = tracker.trackChild(shell, { detached: true });
    await once(shell, 'spawn');
    const owner = createTreeOwner(identityOf(shellPid));
    await owner.observe();
    await ownedTreeRefresh(owner)();
    expect(owner.members().map((m) => m.pid)).toEqual([shellPid]);
    shell.stdin?.write('go\n');
    const child = await pollUntil(() => readChildPids(shellPid, 1)[0], {
      deadlineMs: 10_000,
      description: 'the shell to fork its sleeper',
    });
    const childIdentity = identityOf(child);

    const outcome = await killOwnedTree(owner, { graceMs: 0 });

    expect(outcome.result).toBe('killed');
    const stops = outcome.timeline.filter((entry) => entry.action === 'stop');
    expect(stops.map((entry) => entry.detail)).toEqual([PINNED_ROUND, 'freeze round 2']);
    expect(stops[0]?.pids).toEqual([shellPid]);
    // Round 2 went to the shell's group (the sleeper is in it), revalidated on the check read.
    expect(stops[1]?.groups).toEqual([shellPid]);
    expect(sorted(outcome.killed.map((m) => m.pid))).toEqual(sorted([shellPid, child]));
    expect(isGone(childIdentity.pid, childIdentity.startTime)).toBe(true);
  });

  const isRoot = process.getuid?.() === 0;
  it.skipIf(!isRoot)('resumes a member that became another user’s since the walk, and refuses the kill', async () => {
    // Its own session; once told, execs setpriv, which drops to uid nobody and execs sleep.
    const shell = spawn(
      '/bin/sh',
      ['-c', `read go; exec setpriv --reuid=${NOBODY} --regid=${NOBODY} --clear-groups sleep 60`],
      { detached: true, stdio: ['pipe', 'ignore', 'ignore'] },
    );
    const pid = tracker.trackChild(shell, { detached: true });
    await once(shell, 'spawn');
    const owner = createTreeOwner(identityOf(pid));
    await owner.observe();
    await ownedTreeRefresh(owner)();
    shell.stdin?.write('go\n');
    await pollUntil(() => readProcEntry(pid)?.command === 'sleep' && readProcEntry(pid)?.uid === NOBODY, {
      deadlineMs: 10_000,
      description: 'the member to become uid nobody',
    });

    const outcome = await killOwnedTree(owner, { graceMs: 0 });

    expect(outcome.result).toBe('refused');
    expect(outcome.error).toMatch(new RegExp(`^EPERM: pid ${pid} belongs to uid ${NOBODY}`));
    expect(outcome.timeline.map((entry) => entry.action)).toEqual(['stop', 'observe', 'refused', 'continue']);
    expect(outcome.timeline[3]?.pids).toEqual([pid]);
    // Not left stopped by us (it runs on, back to its sleep), and not ended.
    expect(readProcEntry(pid)?.state).not.toBe('T');
    await pollUntil(() => readProcEntry(pid)?.state === 'S', { deadlineMs: 5000, description: 'the sleep to sleep' });
  });

  it('reads first where no walk pinned the members, and with a grace period', async () => {
    const tree = spawnFixture(tracker, 'spawn-children.mjs', ['--detached', '1', 'run-forever.mjs'], {
      detached: true,
    });
    await readReportedPids(tracker, tree.reportFile, 2);
    const unwalked = createTreeOwner(identityOf(tree.pid));
    await unwalked.observe();
    const outcome = await killOwnedTree(unwalked, { graceMs: 0 });
    expect(outcome.result).toBe('killed');
    expect(outcome.timeline[0]?.action).toBe('observe');
    expect(outcome.timeline.find((entry) => entry.action === 'stop')?.detail).toBe('freeze round 1');

    const graceful = spawnFixture(tracker, 'spawn-children.mjs', ['--detached', '1', 'run-forever.mjs'], {
      detached: true,
    });
    await readReportedPids(tracker, graceful.reportFile, 2);
    const walked = createTreeOwner(identityOf(graceful.pid));
    await walked.observe();
    await ownedTreeRefresh(walked)();
    const termed = await killOwnedTree(walked, { graceMs: 300 });
    expect(termed.result).toBe('killed');
    expect(termed.timeline[0]?.action).toBe('observe');
    expect(termed.timeline.some((entry) => entry.detail === PINNED_ROUND)).toBe(false);
  });
});
