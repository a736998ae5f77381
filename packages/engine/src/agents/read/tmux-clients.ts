/**
 * How many clients a tmux server has attached, from its own open sockets: the server holds its
 * listening socket and one connected socket per client (checked with tmux 3.3a: 1 socket with no
 * client, 2 with one attached). Read from `/proc/PID/fd` so it holds on a focused table, which has
 * the server but not the clients (a person's terminal is in no session's tree). A transient
 * command client (`tmux ls`) counts for its instant: that errs toward "watched", never toward a kill.
 */
import { readdirSync, readlinkSync } from 'node:fs';

/** Sockets beyond the listening one; null when the fds cannot be read (then nothing is judged). */
export function tmuxClientCount(pid: number): number | null {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return null;
  }
  let sockets = 0;
  for (const fd of fds) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) sockets += 1;
    } catch {
      // Closed between the readdir and the readlink.
    }
  }
  return Math.max(0, sockets - 1);
}
