/**
 * New pids from two /proc listings, trusted only while the pid allocator's cursor (read before
 * and after each listing) stays in order: a scripted allocator for the wrap the real one does
 * rarely, and the real /proc for a fork (a new process is new; the listing before is the control).
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { createNewPidWatch, MAX_PROBED_PIDS, parseAllocatorCursor } from '../../src/table/new-pids.js';
import { useProcessTracker } from '../helpers/index.js';

const tracker = useProcessTracker();

/** An allocator that answers these cursor readings and listings in turn. */
function scripted(cursors: readonly number[], listings: readonly (readonly number[])[]) {
  let cursor = 0;
  let listing = 0;
  return createNewPidWatch({
    cursor: () => cursors[cursor++] ?? null,
    list: () => listings[listing++] ?? [],
  });
}

describe('new pids', () => {
  it('answers the difference while the cursor moves forward, nothing when it did not move', () => {
    const watch = scripted(
      [100, 101, 105, 106, 106, 120, 121],
      [
        [10, 20],
        [10, 20, 30],
      ],
    );
    expect(watch.next()).toBeNull(); // First look: nothing to compare with.
    expect(watch.next()).toEqual([30]);
    expect(watch.next()).toEqual([]); // 106 again: nothing allocated, no listing read.
    expect(watch.next()).toEqual([]); // 120…121 against the last listing: none new.
  });

  it('answers null when the cursor wrapped between or during the looks, then trusts the next pair', () => {
    expect(scripted([30_000, 30_001, 400, 401], [[10], [10, 20]]).next()).toBeNull();
    const between = scripted([30_000, 30_001, 400, 401], [[10], [10, 20]]);
    between.next();
    expect(between.next()).toBeNull(); // 30,001 → 400: wrapped since the last look.
    const during = scripted(
      [30_000, 30_001, 30_500, 300, 310, 311, 320, 321],
      [[10], [10, 20], [10, 20, 30], [10, 40]],
    );
    during.next();
    expect(during.next()).toBeNull(); // 30,500 → 300 within one listing.
    expect(during.next()).toBeNull(); // That listing itself may hold recycled pids: no baseline.
    expect(during.next()).toEqual([40]); // Control: two looks in order, trusted again.
    const unreadable = scripted([], [[10]]);
    expect(unreadable.next()).toBeNull();
  });

  it('probes the few pids allocated since the last look instead of listing, never a thread’s id', () => {
    let listings = 0;
    const cursors = [100, 101, 105, 106, 106 + MAX_PROBED_PIDS + 1, 106 + MAX_PROBED_PIDS + 2];
    let cursor = 0;
    const watch = createNewPidWatch({
      cursor: () => cursors[cursor++] ?? null,
      list: () => {
        listings += 1;
        return listings === 1 ? [10, 101] : [10, 101, 103, 105, 130];
      },
      // 102 is gone, 104 is a thread of 103.
      isProcess: (pid) => [101, 103, 105, 130].includes(pid),
    });
    expect(watch.next()).toBeNull();
    expect(watch.lastMode).toBe('listed');
    // 101…105: 101 was listed already; 103 and 105 are new; the thread id 104 is no process.
    expect(watch.next()).toEqual([103, 105]);
    expect(watch.lastMode).toBe('probed');
    expect(listings).toBe(1);
    // More than MAX_PROBED_PIDS allocated since: one listing, against what was listed and probed.
    expect(watch.next()).toEqual([130]);
    expect(watch.lastMode).toBe('listed');
  });

  it('never answers a thread of a real process as a new pid, and sees a real fork', async () => {
    const tids = () => new Set(readdirSync('/proc/self/task').map(Number));
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const watch = createNewPidWatch();
      watch.next();
      const threadsBefore = tids();
      const worker = new Worker('setInterval(() => {}, 1000);', { eval: true });
      await new Promise((resolve) => worker.once('online', resolve));
      const child = spawn('sleep', ['600'], { stdio: 'ignore' });
      tracker.trackChild(child);
      const newThreads = [...tids()].filter((tid) => !threadsBefore.has(tid));
      const fresh = watch.next();
      await worker.terminate();
      if (fresh === null) continue; // A wrap between the looks.
      expect(newThreads.length).toBeGreaterThan(0);
      expect(fresh).toContain(child.pid);
      for (const tid of newThreads) expect(fresh).not.toContain(tid);
      return;
    }
    throw new Error('every look pair straddled a pid wrap');
  });

  it('parses the cursor from /proc/loadavg', () => {
    expect(parseAllocatorCursor('0.10 0.20 0.30 1/88 30897\n')).toBe(30_897);
    expect(parseAllocatorCursor('0.10 0.20 0.30 1/88\n')).toBeNull();
    expect(parseAllocatorCursor(null)).toBeNull();
  });

  it('sees a process forked after the last look on real /proc, and not one started before it', () => {
    // A wrap between the looks (pid_max is 32768 here) answers null, never a wrong list: try again.
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const before = spawn('sleep', ['600'], { stdio: 'ignore' });
      tracker.trackChild(before);
      const watch = createNewPidWatch();
      watch.next();
      const after = spawn('sleep', ['600'], { stdio: 'ignore' });
      tracker.trackChild(after);
      const fresh = watch.next();
      if (fresh === null) continue;
      expect(fresh).toContain(after.pid);
      expect(fresh).not.toContain(before.pid);
      return;
    }
    throw new Error('every look pair straddled a pid wrap');
  });
});
