import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { LINUX_PORT_SOURCES, readSocketFds } from '../../src/ports/linux-ports.js';
import { createCachedLinuxPortReader } from '../../src/ports/linux-ports-cached.js';
import type { PortMap } from '../../src/ports/types.js';
import { startTimeOf, useProcessTracker } from '../helpers/index.js';

const linuxOnly = process.platform !== 'linux';

/**
 * A listener driven by stdin lines: "listen" opens a TCP listener on a free loopback port (printed),
 * "fork" forks a child that inherits every socket (printed: its pid), "close" closes the
 * listeners. Python, because Node cannot fork a process that keeps a listening socket by fd.
 */
const DRIVEN_LISTENER = `
import os, socket, sys, time
held = []
for line in sys.stdin:
    word = line.strip()
    if word == 'listen':
        s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); held.append(s)
        print(s.getsockname()[1], flush=True)
    elif word == 'fork':
        pid = os.fork()
        if pid == 0:
            time.sleep(3600); os._exit(0)
        print(pid, flush=True)
    elif word == 'close':
        for s in held: s.close()
        held = []
        print('closed', flush=True)
`;

function startDriven(tracker: ReturnType<typeof useProcessTracker>) {
  const child = spawn('python3', ['-c', DRIVEN_LISTENER], { stdio: ['pipe', 'pipe', 'inherit'], detached: true });
  tracker.trackChild(child, { detached: true });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    pid: child.pid ?? -1,
    async say(word: string): Promise<string> {
      child.stdin.write(`${word}\n`);
      const next = await lines.next();
      if (next.done === true) throw new Error(`the driven listener ended before answering "${word}"`);
      return next.value;
    },
  };
}

const holdersOf = (map: PortMap | null, port: number) =>
  (map?.listeners ?? [])
    .filter((listener) => listener.port === port)
    .map((listener) => listener.pid)
    .sort((a, b) => a - b);

describe.skipIf(linuxOnly)('the cached port map of a view (real processes)', () => {
  const tracker = useProcessTracker();

  it('after the first read, scans only new processes and still sees who starts, shares and stops listening', async () => {
    const driven = startDriven(tracker);
    const scanned: number[] = [];
    // Only this test's ports count as listening: other test files open listeners meanwhile, and
    // each unknown one would (rightly) turn a read into a full one.
    const ours = new Set<number>();
    const reader = createCachedLinuxPortReader({
      sources: {
        ...LINUX_PORT_SOURCES,
        readTcpListeners: () => (LINUX_PORT_SOURCES.readTcpListeners() ?? []).filter((s) => ours.has(s.port)),
        readNetTable: () => null,
      },
      socketFdsOf: (pid) => {
        scanned.push(pid);
        return readSocketFds(pid);
      },
    });
    const port = Number(await driven.say('listen'));
    ours.add(port);
    const first = await reader.readAll();
    expect(holdersOf(first, port)).toEqual([driven.pid]);
    const firstScanned = new Set(scanned);
    expect(firstScanned.size).toBeGreaterThan(5);
    expect(firstScanned).toContain(driven.pid);

    // Steady state: no fd dir listed again but those of pids new since (other tests start some).
    scanned.length = 0;
    const steady = await reader.readAll();
    expect(holdersOf(steady, port)).toEqual([driven.pid]);
    expect(scanned.filter((pid) => firstScanned.has(pid))).toEqual([]);

    // A fork inherits the listening socket: the new pid is scanned and named too.
    const forked = Number(await driven.say('fork'));
    tracker.trackPid(forked);
    expect(holdersOf(await reader.readAll(), port)).toEqual([driven.pid, forked].sort((a, b) => a - b));

    // An old process opens a new listener: an unknown socket makes the read a full one.
    const second = Number(await driven.say('listen'));
    ours.add(second);
    expect(holdersOf(await reader.readAll(), second)).toEqual([driven.pid]);

    // The parent closes its copies: it no longer holds either; the fork still holds the first.
    expect(await driven.say('close')).toBe('closed');
    const after = await reader.readAll();
    expect(holdersOf(after, port)).toEqual([forked]);
    expect(holdersOf(after, second)).toEqual([]);
    expect(after?.listeners.find((l) => l.pid === forked)?.startTime).toBe(startTimeOf(forked));
  });

  it("lists no /proc between full reads when handed a table's pids, and scans a pid once a table names it", async () => {
    const driven = startDriven(tracker);
    const ours = new Set<number>();
    let listings = 0;
    // The caller's table: every pid now, the driven listener's fork not yet (it forks later).
    const table = LINUX_PORT_SOURCES.listPids();
    const reader = createCachedLinuxPortReader({
      sources: {
        ...LINUX_PORT_SOURCES,
        readTcpListeners: () => (LINUX_PORT_SOURCES.readTcpListeners() ?? []).filter((s) => ours.has(s.port)),
        readNetTable: () => null,
        listPids: () => {
          listings += 1;
          return LINUX_PORT_SOURCES.listPids();
        },
      },
      pidsHint: () => table,
    });
    const port = Number(await driven.say('listen'));
    ours.add(port);
    expect(holdersOf(await reader.readAll(), port)).toEqual([driven.pid]);
    expect(listings).toBe(1);
    expect(holdersOf(await reader.readAll(), port)).toEqual([driven.pid]);
    expect(listings).toBe(1);
    // A fork the table does not know opens nothing new: its copy shows once a table names it.
    const forked = Number(await driven.say('fork'));
    tracker.trackPid(forked);
    expect(holdersOf(await reader.readAll(), port)).toEqual([driven.pid]);
    table.push(forked);
    expect(holdersOf(await reader.readAll(), port)).toEqual([driven.pid, forked].sort((a, b) => a - b));
    expect(listings).toBe(1);
  });
});
