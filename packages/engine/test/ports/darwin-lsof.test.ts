import { describe, expect, it } from 'vitest';
import {
  createDarwinPortReader,
  LSOF_TCP_ARGS,
  LSOF_UDP_ARGS,
  parseLsofFields,
  parseLsofName,
} from '../../src/ports/darwin-lsof.js';
import { parsePsOutput } from '../../src/table/darwin-ps.js';
import type { SpawnInspector } from '../../src/table/inspector.js';
import { type FakeInspector, fakeSpawner } from '../table/fake-inspector.js';

/**
 * `lsof -nP -iTCP -sTCP:LISTEN -F pcnt` in the shape macOS lsof prints (no Mac here: written from
 * lsof's field-output format): node on v4 and v6, postgres on `*` for both families.
 */
const LSOF_TCP = [
  'p1002',
  'cnode',
  'f21',
  'tIPv4',
  'n127.0.0.1:3000',
  'f22',
  'tIPv6',
  'n[::1]:3000',
  'p1500',
  'cpostgres',
  'f7',
  'tIPv6',
  'n*:5432',
  'f8',
  'tIPv4',
  'n*:5432',
  '',
].join('\n');
/** `lsof -nP -iUDP -F pcnt`: a bound socket, a connected one, and one bound to no port. */
const LSOF_UDP = [
  'p345',
  'cmDNSResponder',
  'f5',
  'tIPv4',
  'n*:5353',
  'f6',
  'tIPv4',
  'n10.0.0.5:51000->1.1.1.1:53',
  'f9',
  'tIPv6',
  'n*:*',
  '',
].join('\n');
/** The ps table lsof is joined with; pid 1500 started after lsof ran (a recycled pid). */
const PS = [
  '  345     1   345   501 S      52340   0:02.11 Mon Nov 30 07:25:12 2026     /usr/sbin/mDNSResponder',
  ' 1002     1  1002   501 S+     40960   0:01.00 Mon Nov 30 09:05:00 2026     /usr/local/bin/node server.js',
  ' 1500     1  1500   501 S      10240   0:00.10 Mon Nov 30 23:59:59 2026     /usr/local/bin/postgres -D data',
  '',
].join('\n');
const LSOF_STARTED = new Date(2026, 10, 30, 12, 0, 0).getTime();

function scriptedLsof(
  outputs: Record<'tcp' | 'udp', (fake: FakeInspector) => void>,
): (args: readonly string[]) => SpawnInspector {
  return (args) => {
    if (args !== LSOF_TCP_ARGS && args !== LSOF_UDP_ARGS) throw new Error(`unexpected lsof ${args.join(' ')}`);
    return fakeSpawner(args === LSOF_TCP_ARGS ? outputs.tcp : outputs.udp);
  };
}

describe('lsof field output', () => {
  it('parses names of every shape and skips connected or unbound sockets', () => {
    expect(parseLsofName('127.0.0.1:3000', 'IPv4')).toEqual({ family: 4, address: '127.0.0.1', port: 3000 });
    expect(parseLsofName('[::1]:3000', 'IPv6')).toEqual({ family: 6, address: '::1', port: 3000 });
    expect(parseLsofName('*:5432', 'IPv6')).toEqual({ family: 6, address: '::', port: 5432 });
    expect(parseLsofName('*:5432', 'IPv4')).toEqual({ family: 4, address: '0.0.0.0', port: 5432 });
    expect(parseLsofName('[fe80::1%lo0]:8080', undefined)).toEqual({ family: 6, address: 'fe80::1%lo0', port: 8080 });
    expect(parseLsofName('10.0.0.5:51000->1.1.1.1:53', 'IPv4')).toBeNull();
    expect(parseLsofName('*:*', 'IPv6')).toBeNull();
    expect(parseLsofName('*:0', 'IPv4')).toBeNull();
  });

  it('groups sockets by the pid line before them', () => {
    const tcp = parseLsofFields(LSOF_TCP, 'tcp');
    expect(tcp?.map((s) => `${s.pid} ${s.proto} ${s.address} ${s.port}`)).toEqual([
      '1002 tcp 127.0.0.1 3000',
      '1002 tcp ::1 3000',
      '1500 tcp :: 5432',
      '1500 tcp 0.0.0.0 5432',
    ]);
    expect(parseLsofFields(LSOF_UDP, 'udp')?.map((s) => `${s.pid} ${s.address} ${s.port}`)).toEqual([
      '345 0.0.0.0 5353',
    ]);
  });

  it('refuses output that is not lsof field output', () => {
    expect(parseLsofFields('n*:3000\n', 'tcp')).toBeNull(); // a name before any pid
    expect(parseLsofFields('pabc\n', 'tcp')).toBeNull();
    expect(parseLsofFields('COMMAND PID USER\n', 'tcp')).toBeNull();
  });
});

describe('macOS port reader (injected lsof and ps)', () => {
  const table = async () => parsePsOutput(PS);

  it('joins lsof with ps identities and drops a pid whose process started after lsof ran', async () => {
    const reader = createDarwinPortReader({
      spawnLsof: scriptedLsof({ tcp: (f) => f.finish(LSOF_TCP), udp: (f) => f.finish(LSOF_UDP) }),
      readTable: table,
    });
    const realNow = Date.now;
    Date.now = () => LSOF_STARTED;
    let map: Awaited<ReturnType<typeof reader.readAll>>;
    try {
      map = await reader.readAll();
    } finally {
      Date.now = realNow;
    }
    expect(map?.listeners.map((l) => `${l.port}/${l.proto} ${l.pid} ${l.startTime}`)).toEqual([
      '3000/tcp 1002 Mon Nov 30 09:05:00 2026',
      '3000/tcp 1002 Mon Nov 30 09:05:00 2026',
      '5353/udp 345 Mon Nov 30 07:25:12 2026',
    ]);
    expect(map?.listeners.every((l) => l.inode === null)).toBe(true);
    expect(map?.skippedPids).toBe(1); // 1500: recycled after lsof saw it
  });

  it('reads "no sockets" from lsof exit 1 with empty output, but no map from exit 1 with output', async () => {
    const empty = createDarwinPortReader({
      spawnLsof: scriptedLsof({ tcp: (f) => f.finish('', 1), udp: (f) => f.finish('', 1) }),
      readTable: table,
    });
    expect((await empty.readAll())?.listeners).toEqual([]);
    const partial = createDarwinPortReader({
      spawnLsof: scriptedLsof({ tcp: (f) => f.finish(LSOF_TCP, 1), udp: (f) => f.finish('', 1) }),
      readTable: table,
    });
    expect(await partial.readAll()).toBeNull();
  });

  it('SIGKILLs an lsof that passes its output cap or time bound and yields no map', async () => {
    const spawned: FakeInspector[] = [];
    const flood = createDarwinPortReader({
      maxBytes: 64,
      spawnLsof: () => {
        const spawn = fakeSpawner((f) => {
          spawned.push(f);
          f.stdout.write(`p1\n${'n*:1\n'.repeat(100)}`);
        });
        return spawn;
      },
      readTable: table,
    });
    expect(await flood.readAll()).toBeNull();
    expect(spawned.some((f) => f.signals.includes('SIGKILL'))).toBe(true);
    const hung = createDarwinPortReader({
      timeoutMs: 50,
      spawnLsof: scriptedLsof({ tcp: () => {}, udp: () => {} }),
      readTable: table,
    });
    expect(await hung.readForPids([1002])).toBeNull();
  });

  it('keeps only the asked pids in a per-run read', async () => {
    const reader = createDarwinPortReader({
      spawnLsof: scriptedLsof({ tcp: (f) => f.finish(LSOF_TCP), udp: (f) => f.finish(LSOF_UDP) }),
      readTable: table,
    });
    const map = await reader.readForPids([345]);
    expect(map?.listeners.map((l) => l.pid)).toEqual([345]);
  });
});
