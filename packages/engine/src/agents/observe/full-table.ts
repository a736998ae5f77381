/**
 * The watcher's full scan (Linux): every process's stat, but the cwd readlink (about a third of a
 * scan at ~1,000 processes) only for the processes a session or a leak can show: agent roots by
 * argv shape, processes carrying an agent marker, the remembered sessions' roots and members, and
 * every descendant of those. cwd is never evidence (recognition and leak judgement read argv,
 * markers and ancestry only); it is what a session row and a leaked process show, so a process
 * outside that set would never display it. argv and uid come from the reader's identity cache,
 * markers from the marker reader's.
 */
import { readlinkSync } from 'node:fs';
import { readLiveStartTime } from '../../signal/start-time.js';
import type { LinuxReader } from '../../table/linux-reader.js';
import { identityKey, type ProcessEntry, type ProcessTable } from '../../table/types.js';
import type { MarkerReader } from '../read/environ.js';
import { markerHits, rootAgentOf } from '../rules/match.js';
import type { AgentRules } from '../rules/rules.js';
import { isConsidered } from '../sessions/recognise.js';
import type { StoredSession } from '../sessions/store-schema.js';

export interface FullTableContext {
  readonly rules: AgentRules;
  readonly readMarkers: MarkerReader;
  readonly uid: number | undefined;
}

/** Whether a process can be a session's root or a marked member on its own (before its ancestry). */
function isSeed(entry: ProcessEntry, context: FullTableContext, rememberedKeys: ReadonlySet<string>): boolean {
  if (rememberedKeys.size > 0 && rememberedKeys.has(identityKey(entry))) return true;
  if (!isConsidered(entry, context.uid)) return false;
  return rootAgentOf(entry, context.rules) !== null || markerHits(context.readMarkers(entry), context.rules).length > 0;
}

/**
 * The watcher's test for a process forked since its last tick: one of this user's processes with
 * an agent root's argv shape (it reads argv, never the environment). A marked process outside
 * every followed tree needs no test of its own: markers are inherited, so a marked process
 * descends from a session the watcher follows (its tree is read every tick) unless it was
 * orphaned, and orphans land under pid 1 or a subreaper, whose children every focused read
 * judges by their markers already. Reading each new process's environment as well cost ~40 µs a
 * fork on this machine for nothing those two paths miss.
 */
export function isNewRootSeed(entry: ProcessEntry, context: Pick<FullTableContext, 'rules' | 'uid'>): boolean {
  return isConsidered(entry, context.uid) && rootAgentOf(entry, context.rules) !== null;
}

/** The seeds and all their descendants in the table (by ppid; a loop in a torn read ends at a seen pid). */
export function sessionRelatedPids(
  table: ProcessTable,
  remembered: readonly StoredSession[],
  context: FullTableContext,
): Set<number> {
  const rememberedKeys = new Set<string>();
  for (const session of remembered) {
    rememberedKeys.add(identityKey(session.root));
    for (const member of session.members) rememberedKeys.add(identityKey(member));
  }
  const children = new Map<number, number[]>();
  const related = new Set<number>();
  const pending: number[] = [];
  for (const entry of table.entries.values()) {
    const siblings = children.get(entry.ppid);
    if (siblings === undefined) children.set(entry.ppid, [entry.pid]);
    else siblings.push(entry.pid);
    if (isSeed(entry, context, rememberedKeys)) pending.push(entry.pid);
  }
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    if (related.has(pid)) continue;
    related.add(pid);
    // pid 1 is never a seed (isConsidered), but a remembered record naming it must not pull in the machine.
    if (pid > 1) pending.push(...(children.get(pid) ?? []));
  }
  return related;
}

/**
 * The entry with its cwd, or unchanged (null cwd) when the link is unreadable or the pid no longer
 * holds this identity after the read (a recycled pid's cwd is never shown as this process's).
 */
function withCwd(entry: ProcessEntry): ProcessEntry {
  if (entry.state === 'Z' || entry.state === 'X') return entry;
  let cwd: string;
  try {
    cwd = readlinkSync(`/proc/${entry.pid}/cwd`);
  } catch {
    return entry;
  }
  return readLiveStartTime(entry.pid) === entry.startTime ? { ...entry, cwd } : entry;
}

/** A full table from a cwd-less reader, with cwd read for the session-related processes only. */
export function readFullTable(
  reader: LinuxReader,
  remembered: readonly StoredSession[],
  context: FullTableContext,
): ProcessTable {
  const table = reader.snapshot();
  const entries = new Map(table.entries);
  for (const pid of sessionRelatedPids(table, remembered, context)) {
    const entry = entries.get(pid);
    if (entry !== undefined) entries.set(pid, withCwd(entry));
  }
  return { entries, readAtMs: table.readAtMs };
}
