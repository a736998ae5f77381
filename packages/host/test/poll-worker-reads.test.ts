/**
 * The poll worker's full reads, on real processes. They travel as deltas against the last table
 * the host applied: every table must still be whole and current (a new process shows, an exited
 * one is gone), each a Map of its own, with an unchanged process's entry the same object as before.
 * The worker's reader holds /proc/PID/stat files open between polls; ending the worker must give
 * every one back to the process (Node closes what a worker opened with fs.open when it ends: the
 * Worker option trackUnmanagedFds, on by default; measured here), or
 * a host started and stopped many times would leak one descriptor per process each time.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readlinkSync } from 'node:fs';
import { createLinuxReader } from '@treewarden/engine';
import { describe, expect, it } from 'vitest';
import { useProcessTracker } from '../../../test-support/index.js';
import { createWorkerTableReader } from '../src/poll/worker-reader.js';

/** This process's descriptors open on some /proc/PID/stat. */
function openStatFiles(): number {
  let count = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (/^\/proc\/\d+\/stat$/.test(readlinkSync(`/proc/self/fd/${fd}`))) count += 1;
    } catch {
      // The descriptor readdir itself used, closed by now.
    }
  }
  return count;
}

describe('poll worker full reads', () => {
  const tracker = useProcessTracker();

  it('sends deltas that add up to whole, current tables, keeping an unchanged entry object', async () => {
    const reader = createWorkerTableReader();
    try {
      const steady = spawn('sleep', ['60'], { stdio: 'ignore' });
      const steadyPid = tracker.trackChild(steady);
      const leaving = spawn('sleep', ['60'], { stdio: 'ignore' });
      const leavingPid = tracker.trackChild(leaving);
      await Promise.all([once(steady, 'spawn'), once(leaving, 'spawn')]);
      const first = await reader.readAll();
      const second = await reader.readAll();
      expect(first?.entries.get(steadyPid)?.command).toBe('sleep');
      // The same process, unchanged: the host keeps the entry object it already had.
      expect(second?.entries.get(steadyPid)).toBe(first?.entries.get(steadyPid));
      expect(second?.entries).not.toBe(first?.entries);

      leaving.kill('SIGKILL');
      await once(leaving, 'exit');
      const arriving = spawn('sleep', ['61'], { stdio: 'ignore' });
      const arrivingPid = tracker.trackChild(arriving);
      await once(arriving, 'spawn');
      const before = createLinuxReader({ cwd: false }).snapshot();
      const third = await reader.readAll();
      const after = createLinuxReader({ cwd: false }).snapshot();
      expect(third?.entries.has(leavingPid)).toBe(false);
      expect(third?.entries.get(arrivingPid)?.args).toEqual(['sleep', '61']);
      expect(third?.entries.get(steadyPid)?.pid).toBe(steadyPid);
      // The earlier tables are left as they were.
      expect(second?.entries.has(leavingPid)).toBe(true);
      expect(second?.entries.has(arrivingPid)).toBe(false);
      // Whole: every process that was there both just before and just after the read is in it.
      const stable = [...before.entries.values()].filter(
        (entry) => after.entries.get(entry.pid)?.startTime === entry.startTime,
      );
      expect(stable.length).toBeGreaterThan(3);
      expect(stable.filter((entry) => third?.entries.get(entry.pid)?.startTime !== entry.startTime)).toEqual([]);

      // Each delta's table says what it changed since the one before, and holds to it: every pid
      // it does not name keeps the very entry object (the system rows skip those).
      expect(first?.changes).toBeUndefined();
      const changes = third?.changes;
      expect(changes?.since).toBe(second?.entries);
      expect(changes?.removed).toContain(leavingPid);
      expect(changes?.changed.get(arrivingPid)).toBe(third?.entries.get(arrivingPid));
      for (const [pid, entry] of third?.entries ?? [])
        if (!changes?.changed.has(pid)) expect(entry).toBe(second?.entries.get(pid));
      for (const pid of second?.entries.keys() ?? [])
        if (!third?.entries.has(pid)) expect(changes?.removed).toContain(pid);
    } finally {
      await reader.close();
    }
  });

  it('holds stat files across polls and gives every one back when closed', async () => {
    const before = openStatFiles();
    const reader = createWorkerTableReader();
    const first = await reader.readAll();
    const second = await reader.readAll();
    expect(first?.entries.size).toBeGreaterThan(0);
    expect(second?.entries.has(process.pid)).toBe(true);
    // Held from the second read on: about one per process (a few may have gone meanwhile).
    expect(openStatFiles() - before).toBeGreaterThan((second?.entries.size ?? 0) / 2);
    await reader.close();
    expect(openStatFiles()).toBe(before);
  });
});
