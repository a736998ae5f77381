/** The circumstantial evidence around a leaked process: reparenting, dead leaders, age. Pure. */
import type { ProcessEntry, ProcessTable } from '../../table/types.js';

/** Commands that adopt orphans for a user session (a `systemd --user`, a guardian is passed in). */
export const SUBREAPER_COMMANDS: ReadonlySet<string> = new Set(['systemd', 'launchd']);
/** Never reported or signalled, whatever their markers say. */
export const PROTECTED_COMMANDS: ReadonlySet<string> = new Set(['systemd', 'launchd', 'init']);

export function isAdopter(table: ProcessTable, pid: number, subreapers: ReadonlySet<number>): boolean {
  if (pid === 1 || subreapers.has(pid)) return true;
  const parent = table.entries.get(pid);
  return parent !== undefined && SUBREAPER_COMMANDS.has(parent.command);
}

/** "12 s", "4 min 05 s", "11 h 12 min", "2 d 04 h": the UI's duration format, so a reason reads the same there. */
export function formatAge(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const days = Math.floor(total / 86_400);
  const hours = Math.floor((total % 86_400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const pad = (value: number) => value.toString().padStart(2, '0');
  if (days > 0) return `${days} d ${pad(hours)} h`;
  if (hours > 0) return `${hours} h ${pad(minutes)} min`;
  if (minutes > 0) return `${minutes} min ${pad(seconds)} s`;
  return `${seconds} s`;
}

export function contextReasons(
  entry: ProcessEntry,
  table: ProcessTable,
  subreapers: ReadonlySet<number>,
  now: number,
  isPresent: (pid: number) => boolean = (pid) => table.entries.has(pid),
  ttyOf: (pid: number) => number | null = () => null,
): string[] {
  const reasons: string[] = [];
  if (entry.ppid === 1) reasons.push('reparented to pid 1');
  else if (isAdopter(table, entry.ppid, subreapers)) {
    const parent = table.entries.get(entry.ppid);
    reasons.push(`reparented to subreaper ${entry.ppid}${parent ? ` (${parent.command})` : ''}`);
  }
  if (entry.pgid !== entry.pid && entry.pgid > 1 && !isPresent(entry.pgid))
    reasons.push(`its process group leader ${entry.pgid} is gone`);
  if (entry.sid !== entry.pid && entry.sid > 1 && entry.sid !== entry.pgid && !isPresent(entry.sid))
    reasons.push(`its session leader ${entry.sid} is gone`);
  if (ttyOf(entry.pid) === 0) reasons.push('no controlling terminal');
  if (entry.startedAtMs > 0) reasons.push(`age ${formatAge(now - entry.startedAtMs)}`);
  return reasons;
}
