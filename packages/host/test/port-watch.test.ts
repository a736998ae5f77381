/** The port watch's schedule and bookkeeping, with a counted reader and an injected clock. */
import type { PortListener, PortMap } from '@treewarden/engine';
import { describe, expect, it } from 'vitest';
import { createPortWatch, PORT_READ_INTERVAL_MS } from '../src/poll/port-watch.js';

function listener(pid: number, port: number, proto: 'tcp' | 'udp' = 'tcp'): PortListener {
  return { pid, startTime: `${pid}0`, port, proto, family: 4, address: '127.0.0.1', inode: port };
}

function countedReader(maps: Array<PortMap | null>) {
  const calls: Array<readonly number[] | null> = [];
  const read = async (pids: readonly number[] | null) => {
    calls.push(pids);
    return maps[Math.min(calls.length - 1, maps.length - 1)] ?? null;
  };
  return { calls, read };
}

const mapOf = (...listeners: PortListener[]): PortMap => ({
  listeners,
  unattributed: [],
  skippedPids: 0,
  readAtMs: 0,
});

describe('port watch', () => {
  it('reads the owned pids at most once per interval', async () => {
    const { calls, read } = countedReader([mapOf(listener(10, 3000))]);
    const watch = createPortWatch(read);
    await watch.refresh('owned', [10], 1_000);
    await watch.refresh('owned', [10], 1_000 + PORT_READ_INTERVAL_MS - 1);
    expect(calls).toEqual([[10]]);
    await watch.refresh('owned', [10], 1_000 + PORT_READ_INTERVAL_MS);
    expect(calls).toHaveLength(2);
    expect(watch.listeningOf('10:100')).toEqual([{ proto: 'tcp', address: '127.0.0.1', port: 3000 }]);
  });

  it('reads the full map at once when the Ports column opens, then on the interval', async () => {
    const { calls, read } = countedReader([mapOf(), mapOf(listener(22, 22))]);
    const watch = createPortWatch(read);
    await watch.refresh('owned', [10], 0);
    await watch.refresh('all', [10], 1);
    expect(calls).toEqual([[10], null]);
    expect(watch.listeningOf('22:220')).toHaveLength(1);
    await watch.refresh('all', [10], 2);
    expect(calls).toHaveLength(2);
  });

  it('keeps the last map when a read yields none, and forgets everything with no owned process', async () => {
    const { calls, read } = countedReader([mapOf(listener(10, 3000)), null]);
    const watch = createPortWatch(read);
    await watch.refresh('owned', [10], 0);
    await watch.refresh('owned', [10], PORT_READ_INTERVAL_MS);
    expect(calls).toHaveLength(2);
    expect(watch.listeningOf('10:100')).toHaveLength(1);
    await watch.refresh('owned', [], 2 * PORT_READ_INTERVAL_MS);
    expect(calls).toHaveLength(2);
    expect(watch.listeningOf('10:100')).toBeUndefined();
  });

  it('keys sockets by identity and lists each socket of a process once', async () => {
    const dual = listener(10, 3000);
    const { read } = countedReader([mapOf(dual, { ...dual }, listener(10, 53, 'udp'), listener(11, 4000))]);
    const watch = createPortWatch(read);
    await watch.refresh('owned', [10, 11], 0);
    expect(watch.listeningOf('10:100')?.map((socket) => `${socket.proto}:${socket.port}`)).toEqual([
      'tcp:3000',
      'udp:53',
    ]);
    // A recycled pid (same pid, other start time) inherits nothing.
    expect(watch.listeningOf('10:999')).toBeUndefined();
  });

  it('keeps its lookup while a read finds the same listeners, and makes a new one when they change', async () => {
    const { read } = countedReader([
      mapOf(listener(10, 3000)),
      mapOf(listener(10, 3000)),
      mapOf(listener(10, 3000), listener(11, 4000)),
    ]);
    const watch = createPortWatch(read);
    await watch.refresh('all', [], 0);
    const first = watch.listeningOf;
    await watch.refresh('all', [], PORT_READ_INTERVAL_MS);
    // The same sockets read again: the same function, so the system rows need not look at every row.
    expect(watch.listeningOf).toBe(first);
    await watch.refresh('all', [], 2 * PORT_READ_INTERVAL_MS);
    expect(watch.listeningOf).not.toBe(first);
    expect(watch.listeningOf('11:110')).toHaveLength(1);
    // The old function still answers for the read it was made from.
    expect(first('11:110')).toBeUndefined();
  });
});
