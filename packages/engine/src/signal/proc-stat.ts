/**
 * The few /proc/PID/stat fields signalling needs (state, ppid, pgid, sid, start time), read fresh
 * with no caching: this is the identity check right before a signal, so it must not be stale.
 * Parsing is the table's (`parseProcStat`); this is only the narrow view signalling depends on.
 */
import { parseProcStat, readStatFields } from '../table/linux-stat.js';

export interface StatLite {
  readonly state: string;
  readonly ppid: number;
  readonly pgid: number;
  readonly sid: number;
  /** Field 22: start time in clock ticks since boot, as a decimal string. */
  readonly startTime: string;
}

function toLite(fields: ReturnType<typeof parseProcStat>): StatLite | null {
  if (fields === null) return null;
  return { state: fields.state, ppid: fields.ppid, pgid: fields.pgid, sid: fields.sid, startTime: fields.startTicks };
}

export function parseStatLite(text: string): StatLite | null {
  return toLite(parseProcStat(text));
}

export function readStatLite(pid: number): StatLite | null {
  return toLite(readStatFields(pid));
}
