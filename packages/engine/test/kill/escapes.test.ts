import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { killTree } from '../../src/kill/kill-tree.js';
import { killOwnedTree } from '../../src/kill/owner-kill.js';
import { createTreeOwner } from '../../src/ownership/tree-owner.js';
import { RUN_ID_ENV } from '../../src/run/types.js';
import { createLinuxReader } from '../../src/table/linux-reader.js';
import type { TableReader } from '../../src/table/types.js';
import {
  fixturePath,
  identityOf,
  isRunning,
  MAX_LIFETIME_ENV,
  makeTempDir,
  pollUntil,
  REPORT_ENV,
  readReportedPids,
  readReports,
  removeTempDir,
  spawnFixture,
  TEST_FIXTURE_LIFETIME_MS,
  useProcessTracker,
} from '../helpers/index.js';

describe('escaped descendants', () => {
  const tracker = useProcessTracker();

  it('finds a setsid escape by ancestry and ends it', async () => {
    const fixture = spawnFixture(tracker, 'setsid-escape.mjs', [], { detached: true });
    const [escaped] = await readReportedPids(tracker, fixture.reportFile, 1, { role: 'escaped' });
    const pid = escaped?.pid as number;
    const outcome = await killTree(identityOf(fixture.pid), { graceMs: 0 });
    expect(outcome.result).toBe('killed');
    expect(outcome.killed.map((m) => m.pid)).toContain(pid);
    expect(isRunning(pid)).toBe(false);
  });

  it('keeps an observed escape owned after its parent exits and it is reparented', async () => {
    const fixture = spawnFixture(tracker, 'setsid-escape.mjs', [], { detached: true });
    const [escaped] = await readReportedPids(tracker, fixture.reportFile, 1, { role: 'escaped' });
    const pid = escaped?.pid as number;
    const owner = createTreeOwner(identityOf(fixture.pid));
    await owner.observe();
    process.kill(fixture.pid, 'SIGKILL');
    await pollUntil(() => !isRunning(fixture.pid), { description: 'root to exit' });
    await owner.observe();
    expect(owner.members().map((m) => m.pid)).toEqual([pid]);
    // With the root gone, the graceful root is the escape's own (fully owned) group.
    expect(owner.gracefulRoots().groups).toEqual([pid]);
    const outcome = await killOwnedTree(owner, { graceMs: 100 });
    expect(outcome.result).toBe('killed');
    expect(isRunning(pid)).toBe(false);
  });

  it('finds a double-forked daemon through the run cookie', async () => {
    const runId = randomUUID();
    tracker.trackEnvMarker(RUN_ID_ENV, runId);
    const fixture = spawnFixture(tracker, 'double-fork.mjs', [], { detached: true, env: { [RUN_ID_ENV]: runId } });
    const [daemon] = await readReportedPids(tracker, fixture.reportFile, 1, { role: 'daemon' });
    const daemonPid = daemon?.pid as number;
    await pollUntil(() => !isRunning(readMiddle(fixture.reportFile)), { description: 'the middle process to exit' });
    const outcome = await killTree(identityOf(fixture.pid), { graceMs: 0, runId });
    expect(outcome.result).toBe('killed');
    expect(outcome.killed.map((m) => m.pid)).toContain(daemonPid);
    expect(isRunning(daemonPid)).toBe(false);
  });

  it('finds a cookie-carrying escape where it was reparented, without reading the whole machine', async () => {
    const runId = randomUUID();
    tracker.trackEnvMarker(RUN_ID_ENV, runId);
    const fixture = spawnFixture(tracker, 'double-fork.mjs', [], { detached: true, env: { [RUN_ID_ENV]: runId } });
    const [daemon] = await readReportedPids(tracker, fixture.reportFile, 1, { role: 'daemon' });
    const daemonPid = daemon?.pid as number;
    await pollUntil(() => !isRunning(readMiddle(fixture.reportFile)), { description: 'the middle process to exit' });
    // As a run supervisor watches: owned-tree reads only, so the escape was never seen.
    const linux = createLinuxReader({ cwd: false });
    let wholeReads = 0;
    const reader: TableReader = {
      ...linux,
      readAll: () => {
        wholeReads += 1;
        return linux.readAll();
      },
    };
    const owner = createTreeOwner(identityOf(fixture.pid), { runId, reader });
    await owner.observeRead('trees');
    expect(owner.members().map((m) => m.pid)).not.toContain(daemonPid);
    const outcome = await killOwnedTree(owner, { graceMs: 0 });
    expect(outcome.result).toBe('killed');
    expect(outcome.killed.map((m) => m.pid)).toContain(daemonPid);
    expect(isRunning(daemonPid)).toBe(false);
    expect(wholeReads).toBe(0);
  });

  it('finds an escape whose parent was born and died between two looks, after a whole-machine sweep', async () => {
    const runId = randomUUID();
    tracker.trackEnvMarker(RUN_ID_ENV, runId);
    const dir = makeTempDir('tw-escape-gate-');
    const gate = join(dir, 'gate');
    const reportFile = join(dir, 'report.jsonl');
    execFileSync('mkfifo', [gate]);
    // The root waits on the gate, so the owner's whole-machine look (and its pid mark) comes first.
    const root = spawn('/bin/sh', ['-c', 'read line < "$GATE"; exec "$NODE" "$FIXTURE"'], {
      detached: true,
      stdio: 'ignore',
      env: {
        ...process.env,
        [RUN_ID_ENV]: runId,
        [REPORT_ENV]: reportFile,
        [MAX_LIFETIME_ENV]: String(TEST_FIXTURE_LIFETIME_MS),
        GATE: gate,
        NODE: process.execPath,
        FIXTURE: fixturePath('double-fork.mjs'),
      },
    });
    tracker.trackChild(root, { detached: true });
    try {
      const owner = createTreeOwner(identityOf(root.pid as number), { runId });
      await owner.observe();
      writeFileSync(gate, 'go\n');
      const [daemon] = await readReportedPids(tracker, reportFile, 1, { role: 'daemon' });
      const daemonPid = daemon?.pid as number;
      await pollUntil(() => !isRunning(readMiddle(reportFile)), { description: 'the middle process to exit' });
      const outcome = await killOwnedTree(owner, { graceMs: 0 });
      expect(outcome.result).toBe('killed');
      expect(outcome.killed.map((m) => m.pid)).toContain(daemonPid);
      expect(isRunning(daemonPid)).toBe(false);
    } finally {
      removeTempDir(dir);
    }
  });

  it('without the cookie a double-forked daemon is out of reach of ancestry (the cookie is what finds it)', async () => {
    const fixture = spawnFixture(tracker, 'double-fork.mjs', [], { detached: true });
    const [daemon] = await readReportedPids(tracker, fixture.reportFile, 1, { role: 'daemon' });
    await pollUntil(() => !isRunning(readMiddle(fixture.reportFile)), { description: 'the middle process to exit' });
    const outcome = await killTree(identityOf(fixture.pid), { graceMs: 0 });
    expect(outcome.result).toBe('killed');
    expect(isRunning(daemon?.pid as number)).toBe(true);
  });
});

function readMiddle(reportFile: string): number {
  return readReports(reportFile).find((r) => r.role === 'middle')?.pid ?? -1;
}
