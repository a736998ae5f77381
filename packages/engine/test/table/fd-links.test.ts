/**
 * One listing of a process's fds serves both judgements of an observer tick: the port reader's
 * socket inodes and the fd-hog alert's counts, on a real process holding a listening socket and
 * an inotify watch. Within a tick the listing is read once; the next tick reads afresh; the fd
 * cache takes a listing made this tick instead of reading again.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useProcessTracker } from '../../../../test-support/index.js';
import { createCachedFdReader } from '../../src/agents/alerts/fd-cache.js';
import { readSocketFds, socketFdsOf } from '../../src/ports/linux-ports.js';
import { createFdListings, type FdLink, readFdLinks } from '../../src/table/fd-links.js';
import { fdUsageOf, readFdUsage } from '../../src/table/fd-usage.js';
import { readProcEntry } from '../../src/table/linux-proc.js';

const tracker = useProcessTracker();

/** A node process with a listening TCP socket and an fs.watch (an inotify fd) open. */
async function startHolder(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'tw-fd-links-'));
  const script = `require('fs').watch(${JSON.stringify(dir)}); require('net').createServer().listen(0, '127.0.0.1', () => console.log('up')); setTimeout(() => {}, 60000);`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  tracker.trackChild(child);
  await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
  return child.pid as number;
}

describe.skipIf(process.platform !== 'linux')('fd listings shared in a tick', () => {
  it('lists a process once a tick, and both judgements read the same answer from it', async () => {
    const pid = await startHolder();
    const reads: number[] = [];
    const listings = createFdListings((p) => {
      reads.push(p);
      return readFdLinks(p);
    });
    const links = listings.of(pid) as FdLink[];
    expect(links).not.toBeNull();
    expect(listings.of(pid)).toBe(links);
    expect(listings.readThisTick(pid)).toBe(links);
    expect(reads).toEqual([pid]);
    // The same sockets and counts as each judgement's own read.
    expect(socketFdsOf(links)).toEqual(readSocketFds(pid));
    const usage = fdUsageOf(pid, links);
    expect(usage).toEqual(readFdUsage(pid));
    expect(usage.inotifyWatches).toBeGreaterThanOrEqual(1);
    listings.nextTick();
    expect(listings.readThisTick(pid)).toBeUndefined();
    listings.of(pid);
    expect(reads).toEqual([pid, pid]);
    // A pid with no fd dir to read: null, and read once too.
    expect(listings.of(0)).toBeNull();
    expect(listings.of(0)).toBeNull();
    expect(reads).toEqual([pid, pid, 0]);
  });

  it("the fd cache takes this tick's listing instead of listing the fds again, and renews its entry", async () => {
    const pid = await startHolder();
    const entry = readProcEntry(pid);
    if (entry === null) throw new Error(`holder ${pid} not readable`);
    let clock = 0;
    let ownReads = 0;
    const listings = createFdListings();
    const fds = createCachedFdReader(
      () => clock,
      10_000,
      (p) => {
        ownReads += 1;
        return readFdUsage(p);
      },
      (p) => {
        const links = listings.readThisTick(p);
        return links === undefined || links === null ? links : fdUsageOf(p, links);
      },
    );
    // Nothing listed this tick: the cache reads on its own, once.
    expect(fds.usageOf(entry)?.inotifyWatches).toBeGreaterThanOrEqual(1);
    expect(ownReads).toBe(1);
    fds.sweep();
    // A full scan's port read listed the fds this tick: taken, no read of its own.
    clock = 10_000;
    listings.nextTick();
    listings.of(pid);
    expect(fds.usageOf(entry)?.open).toBeGreaterThan(0);
    expect(ownReads).toBe(1);
    fds.sweep();
    // Renewed then: 9.9 s later (a tick without a listing) the entry is still fresh.
    clock = 19_900;
    listings.nextTick();
    fds.usageOf(entry);
    expect(ownReads).toBe(1);
    fds.sweep();
    // Past the spacing with no listing: read again.
    clock = 20_000;
    fds.usageOf(entry);
    expect(ownReads).toBe(2);
  });
});
