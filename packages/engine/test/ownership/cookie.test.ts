import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { findCookieCarriers, readEnvironBounded, readRunCookies } from '../../src/membership/cookie.js';
import { admitCookieCarriers, createMembership } from '../../src/membership/tracker.js';
import { readLeanProcTable } from '../../src/ownership/proc-reader.js';
import { LEASE_ID_ENV, RUN_ID_ENV } from '../../src/run/types.js';
import { readProcEntry } from '../../src/table/index.js';
import { identityKey, type ProcessEntry } from '../../src/table/types.js';
import { pollUntil, readReportedPids, spawnFixture, useProcessTracker } from '../helpers/index.js';

describe('run cookies', () => {
  const tracker = useProcessTracker();

  it('reads the run and lease ids from a process environment and finds every carrier, even across setsid', async () => {
    const runId = randomUUID();
    const leaseId = randomUUID();
    tracker.trackEnvMarker(RUN_ID_ENV, runId);
    const fixture = spawnFixture(tracker, 'setsid-escape.mjs', [], {
      detached: true,
      env: { [RUN_ID_ENV]: runId, [LEASE_ID_ENV]: leaseId },
    });
    const [escaped] = await readReportedPids(tracker, fixture.reportFile, 1, { role: 'escaped' });
    expect(readRunCookies(fixture.pid)).toEqual({ runId, leaseId });
    const carriers = findCookieCarriers(runId, readLeanProcTable()).map((c) => c.pid);
    expect(carriers.sort()).toEqual([fixture.pid, escaped?.pid].sort());
    expect(findCookieCarriers(randomUUID(), readLeanProcTable())).toEqual([]);
  });

  it('yields null for a pid that does not exist and bounds the read', () => {
    expect(readRunCookies(4_194_305)).toBeNull();
    expect(readEnvironBounded(process.pid, 16)?.length).toBe(16);
  });

  it('never remembers an environ it could not read (empty: an execve in progress) as a non-carrier', async () => {
    const empty = spawn('env', ['-i', 'sleep', '60'], { stdio: 'ignore', detached: true });
    const emptyPid = tracker.trackChild(empty, { detached: true });
    const plain = spawn('sleep', ['60'], { stdio: 'ignore', detached: true });
    const plainPid = tracker.trackChild(plain, { detached: true });
    await pollUntil(() => readProcEntry(emptyPid)?.command === 'sleep' && readProcEntry(plainPid) !== null, {
      description: 'both sleepers',
    });
    expect(readRunCookies(emptyPid)).toBeNull();
    const membership = createMembership(null);
    const table = readLeanProcTable();
    admitCookieCarriers(membership, table, randomUUID());
    const keyOf = (pid: number) => identityKey(table.entries.get(pid) as ProcessEntry);
    expect(membership.nonCarriers.has(keyOf(plainPid))).toBe(true);
    expect(membership.nonCarriers.has(keyOf(emptyPid))).toBe(false);
    expect(membership.unreadCookies.has(keyOf(emptyPid)), 'left for a later read').toBe(true);
    // Kernel threads have no environ, ever: classified at once, never left waiting (kthreadd is
    // pid 2 wherever this pid namespace shows kernel threads).
    const kernelThread = table.entries.get(2);
    if (kernelThread !== undefined && kernelThread.command === 'kthreadd') {
      expect(membership.unreadCookies.has(keyOf(2))).toBe(false);
      expect(membership.nonCarriers.has(keyOf(2))).toBe(true);
    }
  });

  it('reads no environ of a process older than the run root: no carrier predates its root', async () => {
    const runId = randomUUID();
    tracker.trackEnvMarker(RUN_ID_ENV, runId);
    const fixture = spawnFixture(tracker, 'run-forever.mjs', [], { detached: true, env: { [RUN_ID_ENV]: runId } });
    await readReportedPids(tracker, fixture.reportFile, 1);
    const table = readLeanProcTable();
    const startTime = table.entries.get(fixture.pid)?.startTime as string;
    const read: number[] = [];
    const readCookies = (pid: number) => {
      read.push(pid);
      return readRunCookies(pid);
    };
    const found = findCookieCarriers(runId, table, { notBefore: startTime, readCookies }).map((c) => c.pid);
    expect(found).toEqual([fixture.pid]);
    expect(read).not.toContain(process.ppid);
    expect(read).not.toContain(1);
    const later = String(Number(startTime) + 1);
    expect(findCookieCarriers(runId, table, { notBefore: later })).toEqual([]);
  });
});
