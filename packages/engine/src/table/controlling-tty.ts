/** Whether a process has a controlling terminal: `/proc/PID/stat` field 7 (tty_nr), 0 meaning none. Linux only. */
import { readProcText } from './linux-stat.js';

/** tty_nr of `pid`, or null when unknown (gone, not Linux). */
export function readControllingTty(pid: number): number | null {
  if (process.platform !== 'linux') return null;
  const text = readProcText(`/proc/${pid}/stat`);
  if (text === null) return null;
  // comm may hold spaces and parentheses: fields are counted after the last ')'; field 7 is index 4.
  const value = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[4]);
  return Number.isInteger(value) ? value : null;
}
