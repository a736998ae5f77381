import { describe, expect, it } from 'vitest';
import { killOwnedTree } from '../../src/kill/owner-kill.js';
import { createTreeOwner } from '../../src/ownership/tree-owner.js';
import { createFakeSignals, createFakeWorld, type FakeProcess } from '../helpers/index.js';

/** The caller's own group in these injected worlds. */
const CALLER_GROUP = 999;
const ROOT = { pid: 40100, startTime: 'st-40100' };

/** root 40100 (own group) → 40101 (setsid, group 40101) → 40102 (setsid) and 40103 (in 40101). */
function tree(): FakeProcess[] {
  return [
    { pid: 1, ppid: 0, pgid: 1 },
    { pid: 40100, ppid: 900, pgid: 40100 },
    { pid: 40101, ppid: 40100, pgid: 40101 },
    { pid: 40102, ppid: 40101, pgid: 40102 },
    { pid: 40103, ppid: 40101, pgid: 40101 },
  ];
}

function setup(processes = tree(), options: Parameters<typeof createFakeSignals>[1] = {}) {
  const world = createFakeWorld(processes);
  const signals = createFakeSignals(world, options);
  const owner = createTreeOwner(ROOT, { reader: world.reader, signals, callerGroup: CALLER_GROUP });
  return { world, signals, owner };
}

describe('tree owner (injected tables)', () => {
  it('owns observed descendants and keeps them after the root exits and they are reparented to 1', async () => {
    const { world, owner } = setup();
    await owner.observe();
    expect(owner.members().map((m) => m.pid)).toEqual([40100, 40101, 40102, 40103]);
    expect(owner.gracefulRoots()).toEqual({ groups: [40100], processes: [] });
    world.processes = world.processes
      .filter((p) => p.pid !== 40100)
      .map((p) => (p.pid === 40101 ? { ...p, ppid: 1 } : p));
    await owner.observe();
    expect(owner.members().map((m) => m.pid)).toEqual([40101, 40102, 40103]);
    // The root exited: its surviving top owned group becomes the graceful root.
    expect(owner.gracefulRoots()).toEqual({ groups: [40101], processes: [] });
  });

  it('sends SIGTERM to the graceful roots only, then SIGKILL to every owned group deepest first', async () => {
    const { signals, owner } = setup(tree(), { ignoreTerm: true });
    const outcome = await killOwnedTree(owner, { graceMs: 30 });
    expect(outcome.result).toBe('killed');
    const terms = signals.calls.filter((c) => c.signal === 'SIGTERM');
    expect(terms).toEqual([{ kind: 'group', target: 40100, signal: 'SIGTERM' }]);
    const kills = signals.calls.filter((c) => c.signal === 'SIGKILL').map((c) => c.target);
    expect(kills).toEqual([40102, 40101, 40100]);
  });

  it('refuses the whole signal when a group holds a live member it does not own', async () => {
    const { world, signals, owner } = setup();
    await owner.observe();
    // A stranger (parent 7, not ours) appears in owned group 40101.
    world.processes.push({ pid: 40150, ppid: 7, pgid: 40101 });
    await expect(owner.signal('SIGKILL')).rejects.toThrow(
      /identity became uncertain: process group 40101 holds live pid 40150 .*does not own/,
    );
    expect(signals.calls).toEqual([]);
  });

  it('admits a replacement group member only through a still-owned, still-identical ancestor', async () => {
    const { world, signals, owner } = setup();
    await owner.observe();
    world.processes.push({ pid: 40160, ppid: 40103, pgid: 40101 });
    const report = await owner.signal('SIGKILL');
    expect(report.groups).toEqual([40102, 40101, 40100]);
    expect(owner.members().map((m) => m.pid)).not.toContain(1);
    expect(signals.calls.every((c) => c.kind === 'group')).toBe(true);
  });

  it('does not admit a member whose ancestor was recycled: the recycled pid refuses the signal', async () => {
    const { world, signals, owner } = setup();
    await owner.observe();
    world.processes = world.processes.map((p) => (p.pid === 40103 ? { ...p, startTime: 'recycled' } : p));
    world.processes.push({ pid: 40170, ppid: 40103, pgid: 40101 });
    await expect(owner.signal('SIGTERM')).rejects.toThrow(
      'identity became uncertain: pid 40103 now has start time recycled, expected st-40103',
    );
    expect(signals.calls).toEqual([]);
  });

  it('refuses when the only ownership anchor is a recycled controller', async () => {
    const { signals, owner } = setup([{ pid: 40100, ppid: 1, pgid: 40100, startTime: 'someone-else' }]);
    const outcome = await killOwnedTree(owner, { graceMs: 0 });
    expect(outcome.result).toBe('refused');
    expect(outcome.error).toMatch(
      /^identity became uncertain: pid 40100 now has start time someone-else, expected st-40100/,
    );
    expect(signals.calls).toEqual([]);
    await expect(owner.signal('SIGKILL')).rejects.toThrow(/identity became uncertain/);
  });

  it('refuses when an owned pid is recycled between the observation and the signal (exact race)', async () => {
    const { world, signals, owner } = setup();
    await owner.observe();
    world.script = (read) =>
      read === 2 ? tree().map((p) => (p.pid === 40102 ? { ...p, startTime: 'new', ppid: 1 } : p)) : undefined;
    await expect(owner.signal('SIGKILL')).rejects.toThrow(
      /identity became uncertain: pid 40102 now has start time new/,
    );
    expect(signals.calls).toEqual([]);
  });

  it('never signals the caller’s own group: members in it are signalled one by one', async () => {
    const processes = tree().map((p) => (p.pgid === 40100 ? { ...p, pgid: CALLER_GROUP } : p));
    const { signals, owner } = setup(processes);
    const outcome = await killOwnedTree(owner, { graceMs: 0 });
    expect(outcome.result).toBe('killed');
    expect(signals.calls.some((c) => c.kind === 'group' && c.target === CALLER_GROUP)).toBe(false);
    expect(signals.calls).toContainEqual({ kind: 'process', target: 40100, signal: 'SIGKILL' });
  });

  it('counts zombies as stopped and never signals a zombie-only group', async () => {
    // A zombie's children are reparented at its exit, so 40103 hangs off the root here.
    const processes = tree().map((p) =>
      p.pgid === 40101 ? { ...p, state: 'Z', ppid: 40100 } : p.pid === 40102 ? { ...p, ppid: 40100 } : p,
    );
    const { signals, owner } = setup(processes);
    await owner.observe();
    expect(owner.zombies().map((z) => z.pid)).toEqual([40101, 40103]);
    const report = await owner.signal('SIGKILL');
    expect(report.groups).toEqual([40102, 40100]);
    expect(signals.calls.some((c) => c.target === 40101)).toBe(false);
  });
});

describe('retry and fallback (injected)', () => {
  it('retries a tree kill that did not take, and succeeds on the second attempt', async () => {
    let swallowed = 0;
    const { world, owner } = setup(tree(), {
      // The first SIGKILL to 40102's group "takes" nothing (a member stuck in D state, say).
      answer: (call) => (call.signal === 'SIGKILL' && call.target === 40102 && swallowed++ === 0 ? 'sent' : undefined),
    });
    const outcome = await killOwnedTree(owner, { graceMs: 0, verifyTimeoutMs: 50 });
    expect(outcome.result).toBe('killed');
    expect(outcome.attempts).toBe(2);
    expect(outcome.timeline.map((e) => e.action)).toContain('retry');
    expect(world.processes.map((p) => p.pid)).toEqual([1]);
  });

  it('falls back to a direct kill of the root when a tree signal fails', async () => {
    const { signals, owner } = setup(tree(), {
      answer: (call) => {
        if (call.kind === 'group' && call.signal === 'SIGKILL' && call.target === 40100)
          throw new Error('killpg failed');
        return undefined;
      },
    });
    const outcome = await killOwnedTree(owner, { graceMs: 0, attempts: 1, verifyTimeoutMs: 50 });
    expect(outcome.timeline.some((e) => e.action === 'fallback-direct')).toBe(true);
    expect(signals.calls).toContainEqual({ kind: 'process', target: 40100, signal: 'SIGKILL' });
    expect(outcome.result).toBe('killed');
  });

  it('treats a group that vanished between the plan and the signal (ESRCH) as gone', async () => {
    const { owner } = setup(tree(), { answer: (call) => (call.target === 40102 ? 'gone' : undefined) });
    await owner.observe();
    const report = await owner.signal('SIGKILL');
    expect(report.groups).toEqual([40101, 40100]);
  });
});

describe('other users (injected)', () => {
  it('never group-signals a group holding another user’s member: members are signalled one by one', async () => {
    const processes = tree().map((p) => (p.pid === 40103 ? { ...p, uid: 4242 } : p));
    const { signals, owner } = setup(processes);
    await owner.observe();
    const report = await owner.signal('SIGKILL');
    expect(report.groups).toEqual([40102, 40100]);
    expect(signals.calls.some((c) => c.kind === 'group' && c.target === 40101)).toBe(false);
    expect(signals.calls).toContainEqual({ kind: 'process', target: 40103, signal: 'SIGKILL' });
  });
});

describe('macOS killpg EPERM (injected)', () => {
  it('re-reads after EPERM and treats a zombie-only group as gone', async () => {
    const { world, owner } = setup(tree(), {
      answer: (call) => {
        if (call.kind !== 'group' || call.target !== 40101) return undefined;
        // The members exited between the plan and killpg, unreaped: macOS answers EPERM.
        world.processes = world.processes.map((p) => (p.pgid === 40101 ? { ...p, state: 'Z' } : p));
        return 'eperm';
      },
    });
    await owner.observe();
    const report = await owner.signal('SIGKILL');
    expect(report.groups).toEqual([40102, 40100]);
  });

  it('keeps EPERM fatal while a running member remains, and the kill reports kill_failed', async () => {
    const { signals, owner } = setup(tree(), {
      answer: (call) => (call.kind === 'group' && call.target === 40101 ? 'eperm' : undefined),
    });
    await owner.observe();
    await expect(owner.signal('SIGKILL')).rejects.toThrow(
      /EPERM signalling process group 40101: running member\(s\) 40101, 40103/,
    );
    const outcome = await killOwnedTree(owner, { graceMs: 0, attempts: 2, verifyTimeoutMs: 100 });
    expect(outcome.result).toBe('kill_failed');
    expect(outcome.error).toMatch(/EPERM/);
    expect(outcome.attempts).toBe(2);
    expect(outcome.survivors.map((s) => s.pid).sort()).toEqual([40101, 40103]);
    expect(outcome.timeline.filter((e) => e.action === 'fallback-direct')).toHaveLength(2);
    expect(signals.calls).toContainEqual({ kind: 'process', target: 40100, signal: 'SIGKILL' });
  });
});
