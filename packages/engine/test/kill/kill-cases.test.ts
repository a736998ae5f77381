import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { killTree } from '../../src/kill/kill-tree.js';
import { killOwnedTree } from '../../src/kill/owner-kill.js';
import { createTreeOwner } from '../../src/ownership/tree-owner.js';
import { ownProcessGroup } from '../../src/signal/guards.js';
import { createSignalOps } from '../../src/signal/signal-ops.js';
import type { SignalOps } from '../../src/signal/types.js';
import { readProcEntry } from '../../src/table/index.js';
import {
  findEnvCarriers,
  identityOf,
  isRunning,
  makeTempDir,
  pollUntil,
  REPORT_ENV,
  readReportedPids,
  spawnFixture,
  startTimeOf,
  useProcessTracker,
  zombieLeavingScript,
} from '../helpers/index.js';

const GRACE_MS = 300;

describe('kill cases', () => {
  const tracker = useProcessTracker();

  it('escalates to SIGKILL for a worker that ignores SIGTERM', async () => {
    const fixture = spawnFixture(tracker, 'ignore-sigterm.mjs', [], { detached: true });
    await readReportedPids(tracker, fixture.reportFile, 1, { role: 'ignore-sigterm' });
    const outcome = await killTree(identityOf(fixture.pid), { graceMs: GRACE_MS });
    expect(outcome.result).toBe('killed');
    const term = outcome.timeline.find((e) => e.action === 'SIGTERM');
    const kill = outcome.timeline.find((e) => e.action === 'SIGKILL');
    expect(term?.groups).toEqual([fixture.pid]);
    expect(kill).toBeDefined();
    expect((kill?.atMs ?? 0) - (term?.atMs ?? 0)).toBeGreaterThanOrEqual(GRACE_MS - 5);
    expect(isRunning(fixture.pid)).toBe(false);
  });

  it('counts a zombie left by a parent that never reaps as stopped', async () => {
    // sh forks a short child, then execs a long sleep, which never reaps it: the child stays a zombie.
    const parent = spawn('/bin/sh', ['-c', zombieLeavingScript(30)], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    tracker.trackChild(parent);
    const zombiePid = await new Promise<number>((resolve) =>
      parent.stdout?.once('data', (d) => resolve(Number(String(d)))),
    );
    await pollUntil(() => readProcEntry(zombiePid)?.state === 'Z', { description: 'the zombie' });
    const zombie = identityOf(zombiePid);
    const onZombie = await killTree(zombie, { graceMs: 0 });
    expect(onZombie.result).toBe('already_gone');
    const owner = createTreeOwner(identityOf(parent.pid as number));
    await owner.observe();
    expect(owner.zombies()).toEqual([zombie]);
    expect(owner.members().map((m) => m.pid)).toEqual([parent.pid]);
    const outcome = await killOwnedTree(owner, { graceMs: 0 });
    expect(outcome.result).toBe('killed');
  });

  it('does not let a fork loop into new sessions outrun the kill', async () => {
    const dir = makeTempDir();
    const countFile = join(dir, 'count');
    const fixture = spawnFixture(tracker, 'fork-loop.sh', [countFile, '150', '3', '--setsid'], {
      detached: true,
      env: { FORK_LOOP_LIFETIME_S: '40' },
    });
    tracker.trackEnvMarker(REPORT_ENV, fixture.reportFile);
    await pollUntil(() => readFileSync(countFile, 'utf8').split('\n').length > 15, { description: 'the loop to fork' });
    const outcome = await killTree(identityOf(fixture.pid), { graceMs: 0 });
    expect(outcome.result).toBe('killed');
    expect(outcome.killed.length).toBeGreaterThan(10);
    const marker = `${REPORT_ENV}=${fixture.reportFile}`;
    expect(findEnvCarriers(marker).filter((p) => isRunning(p.pid))).toEqual([]);
  });

  it('refuses a stale identity and signals nothing', async () => {
    const fixture = spawnFixture(tracker, 'run-forever.mjs', [], { detached: true });
    await readReportedPids(tracker, fixture.reportFile, 1);
    const live = startTimeOf(fixture.pid);
    const outcome = await killTree({ pid: fixture.pid, startTime: '12345' }, { graceMs: 0 });
    expect(outcome.result).toBe('refused');
    expect(outcome.error).toBe(
      `identity became uncertain: pid ${fixture.pid} now has start time ${live}, expected 12345 (the pid was recycled; nothing was signalled)`,
    );
    expect(outcome.timeline.some((e) => e.action === 'SIGTERM' || e.action === 'SIGKILL')).toBe(false);
    // A run cookie does not override the identity the caller named.
    const withCookie = await killTree({ pid: fixture.pid, startTime: '12345' }, { graceMs: 0, runId: randomUUID() });
    expect(withCookie.result).toBe('refused');
    expect(isRunning(fixture.pid)).toBe(true);
  });

  it('refuses pid 1, pid 0, negative pids and itself', async () => {
    for (const pid of [0, 1, -5, process.pid]) {
      const outcome = await killTree({ pid, startTime: '1' });
      expect(outcome.result).toBe('refused');
      expect(outcome.error).toMatch(/refusing to signal pid/);
    }
  });

  it('never signals its own process group: a worker sharing it is signalled by pidfd alone', async () => {
    const fixture = spawnFixture(tracker, 'spawn-children.mjs', ['2', 'run-forever.mjs']);
    const reports = await readReportedPids(tracker, fixture.reportFile, 3);
    const real = createSignalOps();
    const groupCalls: number[] = [];
    const spy: SignalOps = {
      signalProcess: (target, signal) => real.signalProcess(target, signal),
      signalGroup: (pgid, signal) => {
        groupCalls.push(pgid);
        return real.signalGroup(pgid, signal);
      },
    };
    const outcome = await killTree(identityOf(fixture.pid), { graceMs: 100, signals: spy });
    expect(outcome.result).toBe('killed');
    expect(groupCalls).not.toContain(ownProcessGroup());
    for (const report of reports) expect(isRunning(report.pid)).toBe(false);
    expect(() => real.signalGroup(ownProcessGroup() as number, 0)).toThrow(/own process group/);
  });
});
