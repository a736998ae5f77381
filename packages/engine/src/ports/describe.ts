/**
 * Port rows as users and UIs see them: each listener with its argv and the run it belongs to
 * (the run cookie `TREEWARDEN_RUN_ID`, read the way ownership reads it). A row whose pid now
 * names another process (it exited and the pid was reused after the port read) is dropped.
 */
import { readRunCookies } from '../membership/cookie.js';
import { readLiveStartTime } from '../signal/start-time.js';
import { readProcEntry } from '../table/linux-proc.js';
import { createTableReader } from '../table/reader.js';
import type { ProcessEntry } from '../table/types.js';
import type { PortListener, PortProto } from './types.js';

export interface PortRow {
  readonly port: number;
  readonly proto: PortProto;
  readonly address: string;
  readonly pid: number;
  readonly startTime: string;
  readonly args: readonly string[];
  /** The run whose cookie the process carries; null for processes no Treewarden run started. */
  readonly runId: string | null;
  /** The agent session the process belongs to; null until agent sessions are recognised. */
  readonly sessionId: string | null;
}

export type EntryLookup = (pid: number) => ProcessEntry | null;

/** Linux reads only the listeners' pids; elsewhere one table read serves every row. */
export async function createEntryLookup(): Promise<EntryLookup> {
  if (process.platform === 'linux') return readProcEntry;
  const table = await createTableReader().readAll();
  if (table === null) throw new Error('no process table could be read, so listeners cannot be described');
  return (pid) => table.entries.get(pid) ?? null;
}

/** The run cookie, trusted only when the pid still names the same process after the environ read. */
function runIdOf(listener: PortListener): string | null {
  const runId = readRunCookies(listener.pid)?.runId;
  if (runId === undefined || readLiveStartTime(listener.pid) !== listener.startTime) return null;
  return runId;
}

export function describeListeners(listeners: readonly PortListener[], lookup: EntryLookup): PortRow[] {
  const rows: PortRow[] = [];
  for (const listener of listeners) {
    const entry = lookup(listener.pid);
    if (entry === null || entry.startTime !== listener.startTime) continue;
    const { port, proto, address, pid, startTime } = listener;
    const args = entry.args.length > 0 ? entry.args : [entry.command];
    rows.push({ port, proto, address, pid, startTime, args, runId: runIdOf(listener), sessionId: null });
  }
  return rows;
}
