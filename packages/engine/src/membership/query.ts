/**
 * The one-shot use of the membership model (the guardian's sweep, the orphan scan): which live
 * processes of one table belong to given runs, and why. Direct evidence first, in
 * `EVIDENCE_KINDS` order; then observed ancestry below any member. Pure over the table and the
 * cookie reader, so it is testable with injected tables.
 */

import { indexChildren } from '../table/trees.js';
import { identityKey, isZombie, type ProcessEntry, type ProcessIdentity, type ProcessTable } from '../table/types.js';
import type { RunCookies } from './cookie.js';
import {
  type AdmissionScope,
  admitBy,
  type DeadSession,
  DIRECT_KINDS,
  describeEvidence,
  type Evidence,
  type EvidenceKind,
  type RecordedCgroup,
  type RunAnchor,
  THROUGH_MEMBER_KINDS,
} from './evidence.js';
import { callerLine, neverMember, releasedTrees } from './exclusions.js';

/** Reads a process's run cookies; null when unreadable. `readRunCookies` on Linux. */
export type CookieReader = (pid: number) => RunCookies | null;

export interface MemberMatch {
  readonly entry: ProcessEntry;
  /** The run the process was tied to, when one was (an adoptee or a lease-cookie match may have none). */
  readonly runId: string | null;
  readonly leaseId: string | null;
  /** Absent on matches made outside this model (an agent session's leaks carry their own reasons). */
  readonly evidence?: readonly Evidence[];
  /** The evidence in words (`describeEvidence`), one line per piece. */
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
  /** Never members besides the caller and its ancestors: e.g. guardians still at work. */
  readonly excludePids?: ReadonlySet<number>;
  /**
   * Descendants a run deliberately kept (`keepDescendants`): released from their lease, so never
   * members, and neither is anything they start (matched by identity, then by observed ancestry).
   */
  readonly kept?: readonly ProcessIdentity[];
  readonly readCookies: CookieReader;
  /** Recorded cgroups of runs that are over: every live process in one is a member. */
  readonly cgroups?: readonly RecordedCgroup[];
  /** The pids in a cgroup (`cgroup.procs`); null when unreadable (gone). Needed with `cgroups`. */
  readonly readCgroupPids?: (path: string) => readonly number[] | null;
}

interface Draft {
  runId: string | null;
  leaseId: string | null;
  readonly evidence: Evidence[];
}

export function queryMembers(table: ProcessTable, query: MembershipQuery): MemberMatch[] {
  const children = indexChildren(table.entries);
  const excluded = releasedTrees(query.kept ?? [], table.entries, children);
  for (const pid of query.excludePids ?? []) excluded.add(pid);
  for (const pid of callerLine(table.entries)) excluded.add(pid);
  const isCandidate = (entry: ProcessEntry) => !neverMember(entry.pid, excluded) && !isZombie(entry);
  const drafts = new Map<number, Draft>();
  const note = (pid: number, evidence: Evidence) => {
    const draft = drafts.get(pid) ?? { runId: evidence.runId, leaseId: evidence.leaseId, evidence: [] };
    draft.runId ??= evidence.runId;
    draft.leaseId ??= evidence.leaseId;
    draft.evidence.push(evidence);
    drafts.set(pid, draft);
  };
  const scope = queryScope(query, drafts, table, cgroupsByPid(table, query));
  // forEach and indexed loops: a scan of the whole machine runs this for every process, and the
  // iterators of for-of here were most of what a scan allocated.
  table.entries.forEach((entry) => {
    if (!isCandidate(entry)) return;
    for (let kind = 0; kind < DIRECT_KINDS.length; kind += 1) {
      const found = admitBy(DIRECT_KINDS[kind] as EvidenceKind, entry, scope);
      for (let index = 0; index < found.length; index += 1) note(entry.pid, found[index] as Evidence);
    }
  });
  // Observed ancestry: every live descendant of a member is a member (it may have cleared its env).
  const queue = [...drafts.keys()];
  for (let index = 0; index < queue.length; index += 1) {
    for (const childPid of children.get(queue[index] as number) ?? []) {
      const child = table.entries.get(childPid);
      if (child === undefined || drafts.has(childPid) || !isCandidate(child)) continue;
      for (const kind of THROUGH_MEMBER_KINDS)
        for (const evidence of admitBy(kind, child, scope)) note(childPid, evidence);
      if (drafts.has(childPid)) queue.push(childPid);
    }
  }
  return [...drafts.entries()].map(([pid, draft]) => ({
    entry: table.entries.get(pid) as ProcessEntry,
    ...draft,
    reasons: draft.evidence.flatMap((evidence) => describeEvidence(evidence)),
  }));
}

/**
 * Which recorded cgroup each pid is in, read once per query. A cgroup holding a kept identity is
 * left out whole: the run released what it kept, and everything in that cgroup shares its fate.
 */
function cgroupsByPid(table: ProcessTable, query: MembershipQuery): ReadonlyMap<number, RecordedCgroup> {
  const byPid = new Map<number, RecordedCgroup>();
  if (query.cgroups === undefined || query.cgroups.length === 0 || query.readCgroupPids === undefined) return byPid;
  const keptKeys = new Set((query.kept ?? []).map(identityKey));
  for (const cgroup of query.cgroups) {
    const pids = query.readCgroupPids(cgroup.path) ?? [];
    const holdsKept = pids.some((pid) => {
      const entry = table.entries.get(pid);
      return entry !== undefined && keptKeys.has(identityKey(entry));
    });
    if (!holdsKept) for (const pid of pids) byPid.set(pid, cgroup);
  }
  return byPid;
}

function queryScope(
  query: MembershipQuery,
  drafts: ReadonlyMap<number, Draft>,
  table: ProcessTable,
  cgroups: ReadonlyMap<number, RecordedCgroup>,
): AdmissionScope {
  let cookiesPid = -1;
  let cookies: RunCookies | null = null;
  return {
    root: null,
    anchors: query.anchors,
    runs: new Map(query.anchors.map((anchor) => [anchor.runId, anchor])),
    leaseIds: query.leaseIds ?? new Set(),
    adopterPids: query.adopterPids ?? new Set(),
    deadSessions: query.deadSessions ?? new Map(),
    seen: 'same-table',
    cgroupOf: (pid) => cgroups.get(pid) ?? null,
    // The cookie kinds ask one after the other about the same entry: read its environ once.
    cookiesOf(pid) {
      if (pid !== cookiesPid) {
        cookiesPid = pid;
        cookies = query.readCookies(pid);
      }
      return cookies;
    },
    parentOf(entry) {
      const parent = drafts.get(entry.ppid);
      const parentEntry = table.entries.get(entry.ppid);
      if (parent === undefined || parentEntry === undefined) return null;
      return {
        pid: parentEntry.pid,
        startTime: parentEntry.startTime,
        command: parentEntry.command,
        runId: parent.runId,
        leaseId: parent.leaseId,
      };
    },
  };
}

/** Members whose parent is not a member: the roots to hand to the tree kill. */
export function memberRoots(matches: readonly MemberMatch[]): MemberMatch[] {
  const pids = new Set(matches.map((match) => match.entry.pid));
  return matches.filter((match) => !pids.has(match.entry.ppid));
}
