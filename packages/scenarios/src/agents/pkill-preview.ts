/**
 * What `pkill -f PATTERN` would signal on a process table, computed and never executed: pkill -f
 * matches its (extended) regular expression against each process's whole command line (argv
 * joined by spaces; the bare name when argv is empty) and signals every match but itself. The
 * preview sorts the matches into the scenario's cast: the leaked members it would end, the
 * innocents it would also hit (a live session, an unrelated process), the leaked members it
 * would miss, and how many processes outside the scenario it would hit as well. Pure.
 */
import type { ProcessEntry, ProcessTable } from '@treewarden/engine';

export type CastRole =
  | 'leaked'
  /** A pile-up inside a live session: what a trim should end (the preview's target, like a leak). */
  | 'pile'
  /** The piling session's agent and the members a trim keeps (the newest set): innocents. */
  | 'pile-agent'
  | 'pile-kept'
  | 'live-session-root'
  | 'live-session-member'
  | 'unrelated';

/** Roles a pkill is meant to end; every other role is an innocent. */
const TARGET_ROLES: ReadonlySet<CastRole> = new Set(['leaked', 'pile']);

export interface CastMember {
  readonly pid: number;
  readonly startTime: string;
  readonly role: CastRole;
  readonly command: string;
}

export interface PkillPreview {
  /** What the user would type, e.g. `pkill -f mcp`. */
  readonly command: string;
  readonly pattern: string;
  /** Innocent members of the cast it would signal: a live session's root and members, the unrelated process. */
  readonly innocents: readonly CastMember[];
  /** Leaked (or piled-up) members it would end. */
  readonly leakedHit: readonly number[];
  /** Leaked members it would miss: they run on after the pkill. */
  readonly leakedMissed: readonly number[];
  /** Processes outside the scenario (this machine's) it would signal too. */
  readonly outsideHits: number;
}

export function commandLineOf(entry: Pick<ProcessEntry, 'args' | 'command'>): string {
  return entry.args.length > 0 ? entry.args.join(' ') : entry.command;
}

export function previewPkill(
  pattern: string,
  table: ProcessTable,
  cast: readonly CastMember[],
  /** Processes of the scenario that are not in the cast (the runner's own, transient shells). */
  scenarioPids: ReadonlySet<number>,
): PkillPreview {
  const matcher = new RegExp(pattern);
  const byPid = new Map(cast.map((member) => [member.pid, member]));
  const hit = new Set<number>();
  let outsideHits = 0;
  for (const entry of table.entries.values()) {
    if (entry.state === 'Z' || !matcher.test(commandLineOf(entry))) continue;
    const member = byPid.get(entry.pid);
    if (member !== undefined && member.startTime === entry.startTime) hit.add(entry.pid);
    else if (!scenarioPids.has(entry.pid)) outsideHits += 1;
  }
  const leaked = cast.filter((member) => TARGET_ROLES.has(member.role));
  return {
    command: `pkill -f ${/\s/.test(pattern) ? JSON.stringify(pattern) : pattern}`,
    pattern,
    innocents: cast.filter((member) => !TARGET_ROLES.has(member.role) && hit.has(member.pid)),
    leakedHit: leaked.filter((member) => hit.has(member.pid)).map((member) => member.pid),
    leakedMissed: leaked.filter((member) => !hit.has(member.pid)).map((member) => member.pid),
    outsideHits,
  };
}

export function describePreview(preview: PkillPreview): string {
  const innocents =
    preview.innocents.length === 0
      ? 'no innocent member of the scenario'
      : `${preview.innocents.length} INNOCENT: ${preview.innocents.map((m) => `${m.pid} (${m.role})`).join(', ')}`;
  const missed =
    preview.leakedMissed.length === 0 ? 'misses none' : `MISSES ${preview.leakedMissed.join(' ')}, which run on`;
  return `${preview.command} would hit ${innocents}; ends leaked ${preview.leakedHit.join(' ') || 'none'}, ${missed}; plus ${preview.outsideHits} process(es) outside the scenario`;
}
