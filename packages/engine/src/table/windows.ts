/**
 * Windows table: one CIM query through PowerShell gives what `ps-list` (pid, ppid, name, argv)
 * and `pidtree` (ancestry) give plus the creation time that identity needs, in one bounded run;
 * `wmic` (what pidtree falls back to, deprecated and absent from recent Windows) is the fallback.
 * Both runners are injectable, so the whole path is tested here with captured output.
 */
import { win32 } from 'node:path';
import { type BoundedInspectorOptions, runBoundedInspector, type SpawnInspector, spawnCommand } from './inspector.js';
import { filterTrees } from './trees.js';
import type { ProcessTable, TableReader } from './types.js';
import { rowsToTable, type Win32ProcessRow, wmiDateToFiletime } from './windows-parse.js';

/** PowerShell starts slowly (~1 s cold); JSON for 1,000 processes with long command lines is ~1 MiB. */
export const WINDOWS_INSPECTOR_TIMEOUT_MS = 15_000;
export const WINDOWS_INSPECTOR_MAX_BYTES = 16 * 1024 * 1024;

/** The creation time leaves PowerShell as a string: a FILETIME does not fit a JSON double. */
export const CIM_SCRIPT = [
  '[Console]::OutputEncoding = [System.Text.Encoding]::UTF8;',
  'Get-CimInstance -ClassName Win32_Process | ForEach-Object { [pscustomobject]@{',
  'ProcessId = $_.ProcessId; ParentProcessId = $_.ParentProcessId;',
  "Created = if ($_.CreationDate) { [string]$_.CreationDate.ToFileTimeUtc() } else { '0' };",
  'Name = $_.Name; CommandLine = $_.CommandLine; SessionId = $_.SessionId;',
  'WorkingSetSize = $_.WorkingSetSize; Cpu = $_.UserModeTime + $_.KernelModeTime',
  '} } | ConvertTo-Json -Compress',
].join(' ');

/** `wmic` lists the columns alphabetically after `Node`, whatever order they were asked in. */
export const WMIC_COLUMNS =
  'CreationDate,KernelModeTime,Name,ParentProcessId,ProcessId,SessionId,UserModeTime,WorkingSetSize';
const WMIC_HEADER = `Node,${WMIC_COLUMNS}`;

function toNumber(value: unknown): number {
  return typeof value === 'number' ? value : Number(value ?? 0) || 0;
}

/** Parses the CIM query's JSON (an array, or a lone object for a single process); null if malformed. */
export function parseWin32Processes(json: string, readAtMs = Date.now()): ProcessTable | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json.replace(/^\uFEFF/, ''));
  } catch {
    return null;
  }
  const items = Array.isArray(parsed) ? parsed : [parsed];
  const rows: Win32ProcessRow[] = [];
  for (const item of items) {
    if (typeof item !== 'object' || item === null) return null;
    const record = item as Record<string, unknown>;
    if (typeof record.ProcessId !== 'number' || typeof record.Created !== 'string') return null;
    if (!/^\d+$/.test(record.Created)) return null;
    rows.push({
      pid: record.ProcessId,
      ppid: toNumber(record.ParentProcessId),
      creationFiletime: record.Created,
      name: typeof record.Name === 'string' ? record.Name : '',
      commandLine: typeof record.CommandLine === 'string' ? record.CommandLine : null,
      sessionId: toNumber(record.SessionId),
      workingSetBytes: toNumber(record.WorkingSetSize),
      cpu100ns: toNumber(record.Cpu),
    });
  }
  return rowsToTable(rows, readAtMs);
}

/** Parses `wmic process get WMIC_COLUMNS /format:csv`; a name holding commas is rejoined. */
export function parseWmicCsv(text: string, readAtMs = Date.now()): ProcessTable | null {
  const lines = text
    .replace(/\0/g, '')
    .split(/\r*\n/)
    .filter((line) => line.trim().length > 0);
  if (lines[0]?.trim() !== WMIC_HEADER) return null;
  const rows: Win32ProcessRow[] = [];
  for (const line of lines.slice(1)) {
    const cells = line.trim().split(',');
    if (cells.length < 9) return null;
    const [, created = '', kernel] = cells;
    const [ppid, pid, session, user, workingSet] = cells.slice(-5);
    // System Idle has no creation date; keep the row so it is filtered like the CIM one.
    const creationFiletime = created === '' ? '0' : wmiDateToFiletime(created);
    if (creationFiletime === null) return null;
    rows.push({
      pid: Number(pid),
      ppid: Number(ppid),
      creationFiletime,
      name: cells.slice(3, -5).join(','),
      commandLine: null,
      sessionId: Number(session),
      workingSetBytes: Number(workingSet),
      cpu100ns: Number(kernel) + Number(user),
    });
  }
  return rowsToTable(rows, readAtMs);
}

export interface WindowsReaderOptions extends BoundedInspectorOptions {
  readonly runPowerShell?: SpawnInspector;
  readonly runWmic?: SpawnInspector;
}

function systemPath(...parts: string[]): string {
  return win32.join(process.env.SystemRoot ?? 'C:\\Windows', 'System32', ...parts);
}

/** PowerShell's CIM query first, then wmic; null ("no table") when neither yields a whole listing. */
export async function readWindowsTable(options: WindowsReaderOptions = {}): Promise<ProcessTable | null> {
  const bounds = {
    maxBytes: options.maxBytes ?? WINDOWS_INSPECTOR_MAX_BYTES,
    timeoutMs: options.timeoutMs ?? WINDOWS_INSPECTOR_TIMEOUT_MS,
  };
  const powershell =
    options.runPowerShell ??
    spawnCommand(systemPath('WindowsPowerShell', 'v1.0', 'powershell.exe'), [
      '-NoProfile',
      '-NonInteractive',
      '-Command',
      CIM_SCRIPT,
    ]);
  const cim = await runBoundedInspector(powershell, bounds);
  const fromCim = cim === null ? null : parseWin32Processes(cim);
  if (fromCim !== null) return fromCim;
  const wmic =
    options.runWmic ?? spawnCommand(systemPath('wbem', 'WMIC.exe'), ['process', 'get', WMIC_COLUMNS, '/format:csv']);
  const csv = await runBoundedInspector(wmic, bounds);
  return csv === null ? null : parseWmicCsv(csv);
}

export function createWindowsReader(options: WindowsReaderOptions = {}): TableReader {
  return {
    platform: 'win32',
    readAll: () => readWindowsTable(options),
    readTrees: async (rootPids) => {
      const table = await readWindowsTable(options);
      return table === null ? null : filterTrees(table, rootPids);
    },
  };
}
