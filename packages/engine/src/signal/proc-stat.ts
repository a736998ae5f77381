/**
 * The few /proc/PID/stat fields signalling needs (state, ppid, pgid, start time), read fresh with
 * no caching: this is the identity check right before a signal, so it must not be stale.
 */
import { readFileSync } from 'node:fs';

export interface StatLite {
  readonly state: string;
  readonly ppid: number;
  readonly pgid: number;
  readonly sid: number;
  /** Field 22: start time in clock ticks since boot, as a decimal string. */
  readonly startTime: string;
}

/** `comm` (field 2) may hold spaces and parentheses, so fields are counted from the last `)`. */
export function parseStatLite(text: string): StatLite | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const rest = text.slice(close + 2).split(' ');
  if (rest.length < 20) return null;
  return {
    state: rest[0] ?? '?',
    ppid: Number(rest[1]),
    pgid: Number(rest[2]),
    sid: Number(rest[3]),
    startTime: rest[19] ?? '',
  };
}

export function readStatLite(pid: number): StatLite | null {
  try {
    return parseStatLite(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return null;
  }
}
