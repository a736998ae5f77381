import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  createDarwinReader,
  parseCpuTime,
  parseLstart,
  parsePsOutput,
  readDarwinTable,
} from '../../src/table/darwin-ps.js';
import { type InspectorProcess, runBoundedInspector } from '../../src/table/inspector.js';
import { readProcEntry } from '../../src/table/linux-proc.js';
import { pollUntil, useProcessTracker } from '../helpers/index.js';
import { fakeSpawner, missingBinarySpawner } from './fake-inspector.js';

/** `LC_ALL=C ps -axww -o pid=,ppid=,pgid=,uid=,stat=,rss=,time=,lstart=,command=` on macOS 14. */
const MACOS_PS_OUTPUT = [
  '    1     0     1     0 Ss     13472  21:23.45 Mon Nov 30 07:23:01 2026     /sbin/launchd',
  '  345     1   345   501 S      52340   0:02.11 Mon Nov 30 07:25:12 2026     /System/Library/CoreServices/Finder.app/Contents/MacOS/Finder',
  '  700   345   700   501 U       2048   0:00.00 Mon Nov 30 07:40:00 2026     /usr/sbin/diskutil list',
  '  812   345   812   501 Z          0   0:00.00 Mon Nov 30 08:01:44 2026     <defunct>',
  ' 1002     1  1002   501 S+     40960 1-02:03:04.50 Tue Nov  3 09:05:00 2026     /usr/local/bin/node server.js --port 3000',
  ' 1003  1002  1002   501 I       1024   0:00.01 Tue Nov  3 09:05:01 2026     /bin/sleep 600',
  '',
].join('\n');

describe('macOS ps parser', () => {
  it('parses every column of captured macOS output', () => {
    const table = parsePsOutput(MACOS_PS_OUTPUT, 42);
    expect(table?.readAtMs).toBe(42);
    expect([...(table?.entries.keys() ?? [])]).toEqual([1, 345, 700, 812, 1002, 1003]);
    const node = table?.entries.get(1002);
    expect(node).toMatchObject({
      ppid: 1,
      pgid: 1002,
      sid: 0,
      uid: 501,
      state: 'S',
      command: 'node',
      args: ['/usr/local/bin/node', 'server.js', '--port', '3000'],
      cwd: null,
      rssBytes: 40960 * 1024,
      cpuTimeMs: (86_400 + 2 * 3600 + 3 * 60 + 4.5) * 1000,
      startTime: 'Tue Nov 3 09:05:00 2026',
      startedAtMs: new Date(2026, 10, 3, 9, 5, 0).getTime(),
    });
    expect(table?.entries.get(1)?.cpuTimeMs).toBe((21 * 60 + 23.45) * 1000);
    expect(table?.entries.get(700)?.state).toBe('D');
    expect(table?.entries.get(812)).toMatchObject({ state: 'Z', args: [], ppid: 345 });
    expect(table?.entries.get(1003)).toMatchObject({ state: 'S', ppid: 1002, pgid: 1002, command: 'sleep' });
  });

  it('yields no table rather than a partial one when a line is not understood', () => {
    expect(parsePsOutput(`${MACOS_PS_OUTPUT}garbage line\n`)).toBeNull();
    expect(parsePsOutput('')).toBeNull();
  });

  it('parses lstart and cpu time formats', () => {
    expect(parseLstart('Sun Mar  1 00:00:09 2026')).toBe(new Date(2026, 2, 1, 0, 0, 9).getTime());
    expect(parseLstart('Sun Foo  1 00:00:09 2026')).toBeNull();
    expect(parseCpuTime('0:00.07')).toBe(70);
    expect(parseCpuTime('01:02:03')).toBe(3_723_000);
  });
});

describe('bounded inspector', () => {
  it('reads a whole listing through an injected ps', async () => {
    const spawner = fakeSpawner((fake) => fake.finish(MACOS_PS_OUTPUT));
    const table = await readDarwinTable({ spawnInspector: spawner });
    expect(table?.entries.size).toBe(6);
    expect(spawner.spawned[0]?.signals).toEqual([]);
  });

  it('SIGKILLs an inspector past its output cap and yields no table', async () => {
    const spawner = fakeSpawner((fake) => {
      const chunk = MACOS_PS_OUTPUT.repeat(50);
      for (let written = 0; written < 64 * 1024 && !fake.stdout.writableEnded; written += chunk.length) {
        fake.stdout.write(chunk);
      }
    });
    const reader = createDarwinReader({ spawnInspector: spawner, maxBytes: 32 * 1024 });
    expect(await reader.readAll()).toBeNull();
    expect(spawner.spawned[0]?.signals).toEqual(['SIGKILL']);
  });

  it('SIGKILLs an inspector past its time bound and yields no table', async () => {
    const spawner = fakeSpawner((fake) => fake.stdout.write(MACOS_PS_OUTPUT));
    expect(await readDarwinTable({ spawnInspector: spawner, timeoutMs: 50 })).toBeNull();
    expect(spawner.spawned[0]?.signals).toEqual(['SIGKILL']);
  });

  it('yields no table when ps fails or is missing', async () => {
    const failing = fakeSpawner((fake) => fake.finish(MACOS_PS_OUTPUT, 1));
    expect(await readDarwinTable({ spawnInspector: failing })).toBeNull();
    expect(await readDarwinTable({ spawnInspector: missingBinarySpawner() })).toBeNull();
  });

  it('refuses bounds that make no sense, saying which', () => {
    expect(() => runBoundedInspector(missingBinarySpawner(), { timeoutMs: 0 })).toThrow(/timeoutMs must be a positive/);
  });
});

describe('bounded inspector on real processes', () => {
  const tracker = useProcessTracker();

  /** Spawns a sh script that ignores SIGTERM (kept across exec), so only SIGKILL ends it. */
  function spawnStubborn(script: string): { spawnInspector: () => InspectorProcess; pid: () => number } {
    let pid = 0;
    return {
      spawnInspector: () => {
        const child = spawn('/bin/sh', ['-c', `trap '' TERM; ${script}`], { stdio: ['ignore', 'pipe', 'ignore'] });
        pid = tracker.trackChild(child);
        return child;
      },
      pid: () => pid,
    };
  }

  it('kills a real inspector that floods its output cap', async () => {
    const flood = spawnStubborn('while :; do echo 0123456789abcdef0123456789abcdef; done');
    expect(await runBoundedInspector(flood.spawnInspector, { maxBytes: 64 * 1024 })).toBeNull();
    await pollUntil(() => readProcEntry(flood.pid()) === null, { description: 'the flooding inspector to be gone' });
  });

  it('kills a real inspector that hangs past its time bound', async () => {
    const hang = spawnStubborn('exec sleep 30');
    const started = Date.now();
    expect(await runBoundedInspector(hang.spawnInspector, { timeoutMs: 300 })).toBeNull();
    expect(Date.now() - started).toBeLessThan(5_000);
    await pollUntil(() => readProcEntry(hang.pid()) === null, { description: 'the hung inspector to be gone' });
  });

  it('parses the portable columns from this machine’s own ps', async () => {
    const table = await createDarwinReader().readAll();
    const self = table?.entries.get(process.pid);
    const truth = readProcEntry(process.pid);
    expect(self).toMatchObject({ ppid: truth?.ppid, pgid: truth?.pgid, uid: truth?.uid });
    expect(self?.args).toEqual(truth?.args.flatMap((arg) => arg.split(/\s+/).filter(Boolean)));
    const tree = await createDarwinReader().readTrees([process.ppid]);
    expect(tree?.entries.has(process.pid)).toBe(true);
  });
});
