import { afterEach, describe, expect, it } from 'vitest';
import { removeDirs, startClient, startServerTree } from '../../../../test-support/port-helpers.js';
import {
  createLinuxPortReader,
  LINUX_PORT_SOURCES,
  readLinuxPortMap,
  readListeningSockets,
} from '../../src/ports/linux-ports.js';
import { readTcpListenersNetlink } from '../../src/ports/linux-sock-diag.js';
import type { PortListener } from '../../src/ports/types.js';
import { startTimeOf, useProcessTracker } from '../helpers/index.js';

const linuxOnly = process.platform !== 'linux';

function rowsOn(listeners: readonly PortListener[], port: number) {
  return listeners
    .filter((l) => l.port === port)
    .map((l) => ({ pid: l.pid, startTime: l.startTime, proto: l.proto, address: l.address }));
}

describe.skipIf(linuxOnly)('Linux port map (real processes)', () => {
  const tracker = useProcessTracker();
  const dirs: string[] = [];
  afterEach(() => removeDirs(dirs));

  it('finds a TCP server, its setsid grandchild listener and a UDP socket, each with its identity', async () => {
    const tree = await startServerTree(tracker);
    dirs.push(...tree.dirs);
    const map = await createLinuxPortReader().readAll();
    expect(map).not.toBeNull();
    const listeners = map?.listeners ?? [];
    const server = { pid: tree.serverPid, startTime: startTimeOf(tree.serverPid), address: '127.0.0.1' };
    expect(rowsOn(listeners, tree.tcpPort)).toEqual([{ ...server, proto: 'tcp' }]);
    expect(rowsOn(listeners, tree.udpPort)).toEqual([{ ...server, proto: 'udp' }]);
    expect(rowsOn(listeners, tree.listenerPort)).toEqual([
      { pid: tree.listenerPid, startTime: startTimeOf(tree.listenerPid), proto: 'tcp', address: '127.0.0.1' },
    ]);
    expect(listeners.find((l) => l.port === tree.tcpPort)?.inode).toBeGreaterThan(0);
  });

  it('does not list a connected client (or the server end of its connection) as a listener', async () => {
    const tree = await startServerTree(tracker);
    dirs.push(...tree.dirs);
    const client = await startClient(tracker, tree.tcpPort);
    dirs.push(client.dir);
    const map = readLinuxPortMap('all');
    expect(map?.listeners.filter((l) => l.pid === client.pid)).toEqual([]);
    // The server holds the listening socket and the accepted connection: only the first is a listener.
    expect(rowsOn(map?.listeners ?? [], tree.tcpPort).map((r) => r.pid)).toEqual([tree.serverPid]);
  });

  it('reads only the given pids for one run, with the same rows as the full map', async () => {
    const tree = await startServerTree(tracker);
    dirs.push(...tree.dirs);
    const scanned: number[] = [];
    const sources = {
      ...LINUX_PORT_SOURCES,
      socketInodes: (pid: number) => {
        scanned.push(pid);
        return LINUX_PORT_SOURCES.socketInodes(pid);
      },
    };
    const run = readLinuxPortMap([tree.serverPid, tree.listenerPid], sources);
    expect(scanned.sort()).toEqual([tree.serverPid, tree.listenerPid].sort());
    const full = readLinuxPortMap('all');
    const ours = (full?.listeners ?? []).filter((l) => l.pid === tree.serverPid || l.pid === tree.listenerPid);
    expect(run?.listeners).toEqual(ours);
    expect(run?.listeners).toHaveLength(3);
    expect(run?.unattributed).toEqual([]);
  });

  it('netlink sock_diag and /proc/net/tcp agree on listening TCP sockets; either path attributes them', async () => {
    const tree = await startServerTree(tracker);
    dirs.push(...tree.dirs);
    expect(readTcpListenersNetlink()).not.toBeNull(); // the fast path is available on this machine
    const procOnly = { ...LINUX_PORT_SOURCES, readTcpListeners: () => null };
    const ours = (sockets: ReturnType<typeof readListeningSockets>) =>
      [...(sockets?.values() ?? [])]
        .filter((s) => s.port === tree.tcpPort || s.port === tree.listenerPort)
        .sort((a, b) => a.port - b.port);
    const viaNetlink = ours(readListeningSockets());
    expect(viaNetlink).toHaveLength(2);
    expect(ours(readListeningSockets(procOnly))).toEqual(viaNetlink);
    const map = readLinuxPortMap([tree.serverPid, tree.listenerPid], procOnly);
    expect(map?.listeners.map((l) => `${l.proto}:${l.port}:${l.pid}`).sort()).toEqual(
      [
        `tcp:${tree.tcpPort}:${tree.serverPid}`,
        `udp:${tree.udpPort}:${tree.serverPid}`,
        `tcp:${tree.listenerPort}:${tree.listenerPid}`,
      ].sort(),
    );
  });

  it('skips and counts fd dirs it cannot read, a pid that is gone and a pid recycled mid-scan', async () => {
    const tree = await startServerTree(tracker);
    dirs.push(...tree.dirs);
    const deniedPid = tree.listenerPid;
    const recycledPid = tree.serverPid;
    let reads = 0;
    const sources = {
      ...LINUX_PORT_SOURCES,
      // As root every fd dir is readable: reproduce another user's (EACCES) by injection.
      socketInodes: (pid: number) => {
        if (pid === deniedPid) throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
        return LINUX_PORT_SOURCES.socketInodes(pid);
      },
      // The second read of the server's start time differs: its pid now names another process.
      startTimeOf: (pid: number) =>
        pid === recycledPid && ++reads > 1 ? 'recycled' : LINUX_PORT_SOURCES.startTimeOf(pid),
    };
    const map = readLinuxPortMap([deniedPid, recycledPid, 999_999_999], sources);
    expect(map?.listeners).toEqual([]);
    expect(map?.skippedPids).toBe(3);
  });

  it('yields no map when a socket table is unreadable or not understood; a missing IPv6 table is empty', () => {
    const broken = {
      ...LINUX_PORT_SOURCES,
      readNetTable: (file: string) => (file === 'udp' ? 'header\ngarbage\n' : LINUX_PORT_SOURCES.readNetTable(file)),
    };
    expect(readLinuxPortMap('all', broken)).toBeNull();
    const failing = {
      ...LINUX_PORT_SOURCES,
      readNetTable: () => {
        throw new Error('EIO');
      },
    };
    expect(readLinuxPortMap('all', failing)).toBeNull();
    const noIpv6 = {
      ...LINUX_PORT_SOURCES,
      readNetTable: (file: string) => (file.endsWith('6') ? null : LINUX_PORT_SOURCES.readNetTable(file)),
    };
    expect(readLinuxPortMap([process.pid], noIpv6)).not.toBeNull();
  });
});
