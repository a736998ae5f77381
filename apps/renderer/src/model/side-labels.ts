/**
 * Names that tell sidebar entries apart: a CLI lease (default name `cli`) is labelled by its first
 * run's command and directory ("npm test · ~/proj"), a session by its agent and directory; and
 * which entries are over (folded into "Ended") and which still need a look (live, or leaking).
 */
import type { LeaseView, SessionView } from '@treewarden/protocol';

/** The lease name the CLI gives when the user names none. */
export const DEFAULT_CLI_LEASE_NAME = 'cli';
/** A label's command part is cut here; the full command is in the tooltip. */
export const MAX_LABEL_COMMAND_CHARS = 36;

/** `/home/ana/proj` → `~/proj` (also `/Users/ana`, `/root`): the UI does not know $HOME, these cover it. */
export function shortenPath(path: string | null): string {
  if (path === null || path === '') return '?';
  const home = /^(\/home\/[^/]+|\/Users\/[^/]+|\/root)(?=\/|$)/.exec(path);
  return home ? `~${path.slice(home[0].length)}` : path;
}

function basename(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash >= 0 && slash < path.length - 1 ? path.slice(slash + 1) : path;
}

export function runCommandText(command: string, args: readonly string[]): string {
  const text = [basename(command), ...args].join(' ');
  return text.length > MAX_LABEL_COMMAND_CHARS ? `${text.slice(0, MAX_LABEL_COMMAND_CHARS - 1)}…` : text;
}

export function leaseLabel(lease: LeaseView): string {
  const first = lease.runs[0];
  if (lease.name !== DEFAULT_CLI_LEASE_NAME || first === undefined) return lease.name;
  return `${runCommandText(first.command, first.args)} · ${shortenPath(first.cwd)}`;
}

/** Over and clean: its holder is gone or released, nothing of it runs, nothing of it leaked. */
export function isLeaseEnded(lease: Pick<LeaseView, 'holderState' | 'liveCount' | 'leakedCount'>): boolean {
  return lease.holderState !== 'alive' && lease.liveCount === 0 && lease.leakedCount === 0;
}

/** A session stays in view while it lives or has leaked members; otherwise it is history. */
export function isSessionEnded(session: Pick<SessionView, 'state' | 'leaked'>): boolean {
  return session.state === 'ended' && session.leaked.length === 0;
}

export function sessionLabel(session: Pick<SessionView, 'agent' | 'cwd'>): string {
  return `${session.agent} · ${shortenPath(session.cwd)}`;
}
