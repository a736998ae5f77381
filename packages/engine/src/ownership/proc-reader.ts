/**
 * A lean Linux table: only what ownership decides on (identity, ppid, pgid, sid, state, uid), read
 * fresh for every pid. Skipping cmdline and cwd keeps it cheap enough to repeat between signals
 * (the host's orphan poll, the paperclip adapter). Owners read through the platform's
 * TableReader (createTableReader) unless one is injected.
 */
import { statSync } from 'node:fs';
import { readStatLite } from '../signal/proc-stat.js';
import { listPids } from '../table/linux-stat.js';
import type { ProcessEntry, ProcessTable } from '../table/types.js';

function readLeanEntry(pid: number): ProcessEntry | null {
  const stat = readStatLite(pid);
  if (stat === null) return null;
  let uid: number;
  try {
    uid = statSync(`/proc/${pid}`).uid;
  } catch {
    return null;
  }
  return {
    pid,
    startTime: stat.startTime,
    ppid: stat.ppid,
    pgid: stat.pgid,
    sid: stat.sid,
    state: stat.state,
    uid,
    command: '',
    args: [],
    cwd: null,
    cpuTimeMs: 0,
    rssBytes: 0,
    startedAtMs: 0,
  };
}

export function readLeanProcTable(): ProcessTable {
  const entries = new Map<number, ProcessEntry>();
  for (const pid of listPids()) {
    const entry = readLeanEntry(pid);
    if (entry !== null) entries.set(entry.pid, entry);
  }
  return { entries, readAtMs: Date.now() };
}
