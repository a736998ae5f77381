/** The identity source for signalling: the start time of a live (non-zombie) pid, read fresh. */
import { readStatLite } from './proc-stat.js';

/**
 * Linux: `/proc/PID/stat` field 22, or null when the pid is gone or a zombie (a zombie counts as
 * stopped: there is nothing left to signal). Other platforms have no cheap per-pid read here, so
 * callers inject one (`SignalOpsOptions.readStartTime`); without it this yields null.
 */
export function readLiveStartTime(pid: number): string | null {
  if (process.platform !== 'linux') return null;
  const stat = readStatLite(pid);
  if (stat === null || stat.state === 'Z' || stat.state === 'X') return null;
  return stat.startTime;
}
