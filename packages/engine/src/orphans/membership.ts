/**
 * Decides which live processes belong to given runs, and why: by run or lease cookie, by cwd
 * inside a run's private directory, by the recorded identity of a run's root, by adoption (child
 * of a guardian that is a subreaper), and by observed ancestry below any of those. Used by the
 * guardian when its lease ends and by the orphan scan; pure over a table, so it is testable.
 */

import type { RunCookies } from '../ownership/cookie.js';
import { isInsideDir } from '../state/state-dir.js';
import { isZombie, type ProcessEntry, type ProcessIdentity, type ProcessTable } from '../table/types.js';

/** Reads a process's run cookies; null when unreadable. `readRunCookies` on Linux. */
export type CookieReader = (pid: number) => RunCookies | null;

export interface RunAnchor {
  readonly runId: string;
  readonly leaseId?: string | null;
  readonly runDir?: string | null;
  readonly root?: ProcessIdentity | null;
}

export interface DeadSession {
  readonly leaseId: string;
  /** The holder's start time; only processes started at or after it can be its leftovers. */
  readonly holder: ProcessIdentity;
}

export interface MemberMatch {
  readonly entry: ProcessEntry;
  /** The run the process was tied to, when one was (an adoptee or a lease-cookie match may have none). */
  readonly runId: string | null;
  readonly leaseId: string | null;
  readonly reasons: readonly string[];
}

export interface MembershipQuery {
  readonly anchors: readonly RunAnchor[];
  /** Leases whose cookie alone makes a process a member (their runs ended or their holder died). */
  readonly leaseIds?: ReadonlySet<string>;
  /** Subreapers (guardians) whose live children are adopted members. */
  readonly adopterPids?: ReadonlySet<number>;
  /**
   * Sessions of dead lease holders that led their own session: a live process still in one,
   * started after the holder, is a long-lived child of a dead harness. Keyed by session id.
   */
  readonly deadSessions?: ReadonlyMap<number, DeadSession>;
  /** Never members: the caller itself, its ancestors, guardians still at work. */
  readonly excludePids?: ReadonlySet<number>;
  /**
   * Descendants a run deliberately kept (`keepDescendants`): released from their lease, so never
   * members, and neither is anything they start (matched by identity, then by observed ancestry).
   */
  readonly kept?: readonly ProcessIdentity[];
  readonly readCookies: CookieReader;
}

interface Draft {
  runId: string | null;
  leaseId: string | null;
  reasons: string[];
}

export function findRunMembers(table: ProcessTable, given: MembershipQuery): MemberMatch[] {
  const query = withKeptExcluded(table, given);
  const byRun = new Map(query.anchors.map((anchor) => [anchor.runId, anchor]));
  const drafts = new Map<number, Draft>();
  const note = (pid: number, runId: string | null, leaseId: string | null, reason: string) => {
    const draft = drafts.get(pid) ?? { runId, leaseId, reasons: [] };
    draft.runId ??= runId;
    draft.leaseId ??= leaseId;
    draft.reasons.push(reason);
    drafts.set(pid, draft);
  };
  for (const entry of table.entries.values()) {
    if (!isCandidate(entry, query)) continue;
    const cookies = query.readCookies(entry.pid);
    const run = cookies?.runId ? byRun.get(cookies.runId) : undefined;
    if (run !== undefined) note(entry.pid, run.runId, run.leaseId ?? null, `cookie ${cookieText('RUN', run.runId)}`);
    if (cookies?.leaseId && query.leaseIds?.has(cookies.leaseId)) {
      note(entry.pid, cookies.runId ?? null, cookies.leaseId, `cookie ${cookieText('LEASE', cookies.leaseId)}`);
    }
    for (const anchor of query.anchors) {
      if (anchor.runDir && entry.cwd !== null && isInsideDir(entry.cwd, anchor.runDir)) {
        note(entry.pid, anchor.runId, anchor.leaseId ?? null, `cwd ${entry.cwd} inside run dir`);
      }
      if (anchor.root && anchor.root.pid === entry.pid && anchor.root.startTime === entry.startTime) {
        note(entry.pid, anchor.runId, anchor.leaseId ?? null, 'recorded identity of the run root');
      }
    }
    const session = query.deadSessions?.get(entry.sid);
    if (session !== undefined && startedNoEarlier(entry, session.holder)) {
      note(entry.pid, null, session.leaseId, `in the session of dead lease holder ${session.holder.pid}`);
    }
    if (query.adopterPids?.has(entry.ppid)) {
      note(entry.pid, null, null, `child of guardian ${entry.ppid} (adopted by the subreaper or spawned as a run)`);
    }
  }
  addDescendants(table, drafts, query);
  return [...drafts.entries()].map(([pid, draft]) => ({ entry: table.entries.get(pid) as ProcessEntry, ...draft }));
}

/** Adds every live kept identity and its observed descendants to the query's exclusions. */
function withKeptExcluded(table: ProcessTable, query: MembershipQuery): MembershipQuery {
  if (query.kept === undefined || query.kept.length === 0) return query;
  const excluded = new Set(query.excludePids ?? []);
  const queue = query.kept
    .filter((kept) => table.entries.get(kept.pid)?.startTime === kept.startTime)
    .map((kept) => kept.pid);
  const children = childrenByParent(table);
  const visited = new Set<number>();
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    if (visited.has(pid)) continue;
    visited.add(pid);
    excluded.add(pid);
    for (const child of children.get(pid) ?? []) queue.push(child.pid);
  }
  return { ...query, excludePids: excluded };
}

function childrenByParent(table: ProcessTable): Map<number, ProcessEntry[]> {
  const children = new Map<number, ProcessEntry[]>();
  for (const entry of table.entries.values()) {
    const list = children.get(entry.ppid) ?? [];
    list.push(entry);
    children.set(entry.ppid, list);
  }
  return children;
}

function isCandidate(entry: ProcessEntry, query: MembershipQuery): boolean {
  return entry.pid > 1 && !isZombie(entry) && !query.excludePids?.has(entry.pid);
}

/** Linux start times are clock ticks since boot: comparable as numbers. Unknown formats never match. */
function startedNoEarlier(entry: ProcessIdentity, holder: ProcessIdentity): boolean {
  const own = Number(entry.startTime);
  const theirs = Number(holder.startTime);
  return Number.isFinite(own) && Number.isFinite(theirs) && holder.startTime !== '' && own >= theirs;
}

function cookieText(which: 'RUN' | 'LEASE', id: string): string {
  return `TREEWARDEN_${which}_ID=${id}`;
}

/** Observed ancestry: every live descendant of a member is a member (it may have cleared its env). */
function addDescendants(table: ProcessTable, drafts: Map<number, Draft>, query: MembershipQuery): void {
  const children = childrenByParent(table);
  const queue = [...drafts.keys()];
  while (queue.length > 0) {
    const parentPid = queue.shift() as number;
    const parent = drafts.get(parentPid) as Draft;
    for (const child of children.get(parentPid) ?? []) {
      if (drafts.has(child.pid) || !isCandidate(child, query)) continue;
      drafts.set(child.pid, { runId: parent.runId, leaseId: parent.leaseId, reasons: [`descendant of ${parentPid}`] });
      queue.push(child.pid);
    }
  }
}

/** Members whose parent is not a member: the roots to hand to the tree kill. */
export function memberRoots(matches: readonly MemberMatch[]): MemberMatch[] {
  const pids = new Set(matches.map((match) => match.entry.pid));
  return matches.filter((match) => !pids.has(match.entry.ppid));
}
