import { describe, expect, it } from 'vitest';
import { createTableReader } from '../../src/table/reader.js';
import { filterTrees } from '../../src/table/trees.js';
import type { ProcessEntry } from '../../src/table/types.js';
import { createWindowsReader, parseWin32Processes, parseWmicCsv, readWindowsTable } from '../../src/table/windows.js';
import { filetimeToEpochMs, splitWindowsCommandLine, wmiDateToFiletime } from '../../src/table/windows-parse.js';
import { fakeSpawner, missingBinarySpawner } from './fake-inspector.js';

function filetimeOf(utcMs: number, extraMicros = 0): string {
  return ((BigInt(utcMs) * 1000n + BigInt(extraMicros)) * 10n + 116_444_736_000_000_000n).toString();
}

const NODE_CREATED = filetimeOf(Date.UTC(2026, 10, 30, 7, 0, 0), 123_456);
const CHILD_CREATED = filetimeOf(Date.UTC(2026, 10, 30, 7, 0, 1));

/** Captured from the CIM query (ConvertTo-Json -Compress), trimmed to four processes. */
const CIM_JSON = JSON.stringify([
  {
    ProcessId: 0,
    ParentProcessId: 0,
    Created: '0',
    Name: 'System Idle Process',
    CommandLine: null,
    SessionId: 0,
    WorkingSetSize: 8192,
    Cpu: 0,
  },
  {
    ProcessId: 4,
    ParentProcessId: 0,
    Created: filetimeOf(Date.UTC(2026, 10, 30, 6, 23, 1)),
    Name: 'System',
    CommandLine: null,
    SessionId: 0,
    WorkingSetSize: 151552,
    Cpu: 156250,
  },
  {
    ProcessId: 5000,
    ParentProcessId: 4,
    Created: NODE_CREATED,
    Name: 'node.exe',
    CommandLine: '"C:\\Program Files\\nodejs\\node.exe" server.js --name "a b"',
    SessionId: 1,
    WorkingSetSize: 52428800,
    Cpu: 781250,
  },
  {
    ProcessId: 5004,
    ParentProcessId: 5000,
    Created: CHILD_CREATED,
    Name: 'cmd.exe',
    CommandLine: 'C:\\Windows\\system32\\cmd.exe /d /s /c "echo hi"',
    SessionId: 1,
    WorkingSetSize: 4096,
    Cpu: 0,
  },
]);

/** Captured `wmic process get … /format:csv` output: CR CR LF line ends, a blank first line. */
const WMIC_CSV = [
  '',
  'Node,CreationDate,KernelModeTime,Name,ParentProcessId,ProcessId,SessionId,UserModeTime,WorkingSetSize',
  'DESKTOP-1,,0,System Idle Process,0,0,0,0,8192',
  'DESKTOP-1,20261130072301.000000+060,156250,System,0,4,0,0,151552',
  'DESKTOP-1,20261130080000.123456+060,312500,node.exe,4,5000,1,468750,52428800',
  'DESKTOP-1,20261130080001.000000+060,0,odd,name.exe,5000,5004,1,0,4096',
  '',
].join('\r\r\n');

describe('windows parsers', () => {
  it('parses the CIM query with creation times as identity', () => {
    const table = parseWin32Processes(CIM_JSON, 7);
    expect([...(table?.entries.keys() ?? [])]).toEqual([4, 5000, 5004]);
    expect(table?.entries.get(5000)).toMatchObject({
      startTime: NODE_CREATED,
      ppid: 4,
      pgid: 5000,
      sid: 1,
      state: '?',
      uid: -1,
      command: 'node.exe',
      args: ['C:\\Program Files\\nodejs\\node.exe', 'server.js', '--name', 'a b'],
      cwd: null,
      cpuTimeMs: 78,
      rssBytes: 52428800,
      startedAtMs: Date.UTC(2026, 10, 30, 7, 0, 0, 123),
    });
    expect(parseWin32Processes(JSON.stringify({ ProcessId: 9, Created: CHILD_CREATED }))?.entries.size).toBe(1);
  });

  it('yields no table for malformed JSON or rows without identity', () => {
    expect(parseWin32Processes('[{"ProcessId":1')).toBeNull();
    expect(parseWin32Processes('[{"ProcessId":1,"Created":1339}]')).toBeNull();
    expect(parseWin32Processes('[]')).toBeNull();
  });

  it('parses wmic CSV to the same identities as the CIM query', () => {
    const fromWmic = parseWmicCsv(WMIC_CSV);
    const fromCim = parseWin32Processes(CIM_JSON);
    expect(fromWmic?.entries.get(5000)?.startTime).toBe(fromCim?.entries.get(5000)?.startTime);
    expect(fromWmic?.entries.get(5004)?.startTime).toBe(fromCim?.entries.get(5004)?.startTime);
    expect(fromWmic?.entries.get(5004)).toMatchObject({ command: 'odd,name.exe', ppid: 5000, sid: 1 });
    expect(fromWmic?.entries.get(5000)?.cpuTimeMs).toBe(78);
    expect(fromWmic?.entries.has(0)).toBe(false);
    expect(parseWmicCsv('Node,Name\r\nX,y')).toBeNull();
  });

  it('converts dates and splits command lines like Windows does', () => {
    expect(wmiDateToFiletime('20261130080000.123456+060')).toBe(NODE_CREATED);
    expect(wmiDateToFiletime('2026-11-30')).toBeNull();
    expect(filetimeToEpochMs(NODE_CREATED)).toBe(Date.UTC(2026, 10, 30, 7, 0, 0, 123));
    expect(splitWindowsCommandLine('a\\\\\\"b "c\\\\" d\\e ""')).toEqual(['a\\"b', 'c\\', 'd\\e', '']);
    expect(splitWindowsCommandLine('  x\t y  ')).toEqual(['x', 'y']);
  });
});

describe('windows reader', () => {
  it('reads through PowerShell and filters trees', async () => {
    const powershell = fakeSpawner((fake) => fake.finish(CIM_JSON));
    const reader = createWindowsReader({ runPowerShell: powershell, runWmic: missingBinarySpawner() });
    expect((await reader.readAll())?.entries.size).toBe(3);
    expect([...((await reader.readTrees([5000]))?.entries.keys() ?? [])].sort()).toEqual([5000, 5004]);
  });

  it('falls back to wmic when PowerShell fails or hangs', async () => {
    const wmic = fakeSpawner((fake) => fake.finish(WMIC_CSV));
    const broken = fakeSpawner((fake) => fake.finish('', 1));
    expect((await readWindowsTable({ runPowerShell: broken, runWmic: wmic }))?.entries.size).toBe(3);
    const hung = fakeSpawner(() => {});
    expect((await readWindowsTable({ runPowerShell: hung, runWmic: wmic, timeoutMs: 50 }))?.entries.size).toBe(3);
    expect(hung.spawned[0]?.signals).toEqual(['SIGKILL']);
  });

  it('yields no table when neither source gives a whole listing', async () => {
    const truncated = fakeSpawner((fake) => fake.finish(CIM_JSON.slice(0, 100)));
    expect(await readWindowsTable({ runPowerShell: truncated, runWmic: missingBinarySpawner() })).toBeNull();
  });
});

describe('tree filter', () => {
  function entry(pid: number, ppid: number, startedAtMs: number): ProcessEntry {
    const base = { pgid: pid, sid: 0, state: 'S', uid: 0, command: 'x', args: [], cwd: null, cpuTimeMs: 0 };
    return { ...base, pid, ppid, startTime: String(startedAtMs), rssBytes: 0, startedAtMs };
  }

  it('keeps descendants and drops a child that predates its parent (reused parent pid)', () => {
    const entries = new Map(
      [entry(10, 1, 100), entry(11, 10, 200), entry(12, 11, 300), entry(13, 10, 50), entry(20, 1, 100)].map(
        (e) => [e.pid, e] as const,
      ),
    );
    const trees = filterTrees({ entries, readAtMs: 1 }, [10, 999]);
    expect([...trees.entries.keys()].sort()).toEqual([10, 11, 12]);
    expect(trees.readAtMs).toBe(1);
  });
});

describe('backend choice', () => {
  it('picks one backend per platform, with explicit fallbacks', async () => {
    const linux = createTableReader('linux');
    expect(linux.platform).toBe('linux');
    expect((await linux.readAll())?.entries.has(process.pid)).toBe(true);
    expect(createTableReader('darwin').platform).toBe('darwin');
    expect(createTableReader('freebsd').platform).toBe('freebsd');
    expect(createTableReader('win32').platform).toBe('win32');
    expect(() => createTableReader('aix')).toThrow(/no process table reader for platform "aix" \(supported: linux/);
  });
});
