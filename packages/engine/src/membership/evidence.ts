/**
 * Every kind of evidence that a process belongs to a run, in one place: the union member, its
 * admission rule and its description sit together in `EVIDENCE_KINDS`, and the `satisfies` below
 * makes a kind without either a compile error. A new kind is one union member, one entry here,
 * and whatever its rule reads added to `AdmissionScope` (see `in-run-cgroup`: a union member, a
 * rule, and `cgroupOf` filled by the query from the recorded cgroups).
 */

import { isInsideDir } from '../state/state-dir.js';
import type { ProcessEntry, ProcessIdentity } from '../table/types.js';
import type { RunCookies } from './cookie.js';
import { describeStart, type StartClock, systemStartClock } from './start-clock.js';

/** The run and lease a piece of evidence ties a process to, where it names them. */
interface Tie {
  readonly runId: string | null;
  readonly leaseId: string | null;
}

export type Evidence =
  /** The process a tracked run started (its identity is the tracker's anchor). */
  | (Tie & { readonly kind: 'root'; readonly root: ProcessIdentity })
  /**
   * Child of a member that was still identical: `tracked` when a tracker admitted it (remembered
   * for its lifetime), `same-table` when a one-shot query saw both in one table.
   */
  | (Tie & {
      readonly kind: 'ancestry';
      readonly parent: ProcessIdentity & { readonly command: string };
      readonly seen: 'tracked' | 'same-table';
    })
  | (Tie & { readonly kind: 'run-cookie'; readonly runId: string })
  | (Tie & { readonly kind: 'lease-cookie'; readonly leaseId: string })
  | (Tie & { readonly kind: 'cwd-in-run-dir'; readonly cwd: string; readonly runDir: string })
  | (Tie & { readonly kind: 'recorded-root'; readonly root: ProcessIdentity })
  | (Tie & { readonly kind: 'adopted-by-guardian'; readonly guardianPid: number })
  | (Tie & { readonly kind: 'dead-holder-session'; readonly holder: ProcessIdentity; readonly sid: number })
  /**
   * In the run's own cgroup v2 (`--cgroup`). Exact: only the cgroup's owner can move a process in,
   * and a process cannot leave by setsid, double fork or clearing its environment.
   */
  | (Tie & { readonly kind: 'in-run-cgroup'; readonly path: string });

export type EvidenceKind = Evidence['kind'];
export type EvidenceOf<K extends EvidenceKind> = Extract<Evidence, { kind: K }>;

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

/** A run's own cgroup v2 as recorded in the ledger (`run_start.cgroup`). */
export interface RecordedCgroup {
  readonly runId: string;
  readonly leaseId: string | null;
  readonly path: string;
}

/** The member a child is admitted through: its parent, a member still identical in the table read. */
export interface AdmittingParent extends ProcessIdentity, Tie {
  readonly command: string;
}

/** Everything the admission rules read. A one-shot query fills the anchors; a tracker its root. */
export interface AdmissionScope {
  /** The tracked run's root identity; null in a one-shot query. */
  readonly root: ProcessIdentity | null;
  readonly anchors: readonly RunAnchor[];
  readonly runs: ReadonlyMap<string, RunAnchor>;
  /** Leases whose cookie alone makes a process a member. */
  readonly leaseIds: ReadonlySet<string>;
  /** Subreapers (guardians) whose live children are adopted members. */
  readonly adopterPids: ReadonlySet<number>;
  /** Sessions of dead lease holders that led their own session, by session id. */
  readonly deadSessions: ReadonlyMap<number, DeadSession>;
  /** How ancestry was observed: remembered by a tracker, or within one table. */
  readonly seen: 'tracked' | 'same-table';
  /** The recorded run cgroup PID is in, if any (read from the cgroups' `cgroup.procs`, not from PID). */
  cgroupOf(pid: number): RecordedCgroup | null;
  /** PID's run cookies (null: unreadable); a scope reads each process at most once. */
  cookiesOf(pid: number): RunCookies | null;
  /** The entry's parent when that parent is a member, still identical, in this table. */
  parentOf(entry: ProcessEntry): AdmittingParent | null;
}

export interface DescribeContext {
  /** The member as last read, when known (says whether its parent since exited). */
  readonly entry?: ProcessEntry | null;
  readonly clock?: StartClock | null;
}

/**
 * `direct` kinds hold on their own; `through-member` kinds hold only through another member, so
 * they are decided after the direct ones, walking down from them.
 */
export interface EvidenceRule<K extends EvidenceKind> {
  readonly stage: 'direct' | 'through-member';
  admit(entry: ProcessEntry, scope: AdmissionScope): readonly EvidenceOf<K>[];
  describe(evidence: EvidenceOf<K>, context: Required<DescribeContext>): readonly string[];
}

/** One rule per kind, no kind without one: what `EVIDENCE_KINDS` must satisfy. */
export type EvidenceRules = { readonly [K in EvidenceKind]: EvidenceRule<K> };

const none: readonly never[] = [];

/**
 * The evidence `evidenceOf` finds for each anchor, allocating nothing when none matches: what
 * most processes get, on every scan of the whole table (a flatMap made two arrays per anchor).
 */
function fromAnchors<E>(anchors: readonly RunAnchor[], evidenceOf: (anchor: RunAnchor) => E | null): readonly E[] {
  let found: E[] | null = null;
  for (const anchor of anchors) {
    const evidence = evidenceOf(anchor);
    if (evidence === null) continue;
    found ??= [];
    found.push(evidence);
  }
  return found ?? none;
}

export const EVIDENCE_KINDS = {
  root: {
    stage: 'direct',
    admit: (entry, scope) =>
      scope.root !== null && scope.root.pid === entry.pid && scope.root.startTime === entry.startTime
        ? [{ kind: 'root', root: scope.root, runId: null, leaseId: null }]
        : none,
    describe: (evidence, { clock }) => [
      `the run's root: the process this run started (pid ${evidence.root.pid}, start ${describeStart(evidence.root.startTime, clock)})`,
    ],
  },
  ancestry: {
    stage: 'through-member',
    admit(entry, scope) {
      const parent = scope.parentOf(entry);
      if (parent === null) return none;
      const identity = { pid: parent.pid, startTime: parent.startTime, command: parent.command };
      return [{ kind: 'ancestry', parent: identity, seen: scope.seen, runId: parent.runId, leaseId: parent.leaseId }];
    },
    describe(evidence, { entry }) {
      const { parent } = evidence;
      if (evidence.seen === 'same-table') return [`descendant of ${parent.pid}`];
      const admitted = `child of pid ${parent.pid} (${parent.command}), a member with the same identity when first seen`;
      if (entry === null || entry.ppid === parent.pid) return [admitted];
      return [admitted, `its parent exited; reparented to pid ${entry.ppid}, still a member by identity`];
    },
  },
  'run-cookie': {
    stage: 'direct',
    admit(entry, scope) {
      const runId = scope.runs.size === 0 ? undefined : scope.cookiesOf(entry.pid)?.runId;
      const run = runId === undefined ? undefined : scope.runs.get(runId);
      return run === undefined ? none : [{ kind: 'run-cookie', runId: run.runId, leaseId: run.leaseId ?? null }];
    },
    describe: (evidence) => [`cookie TREEWARDEN_RUN_ID=${evidence.runId}`],
  },
  'lease-cookie': {
    stage: 'direct',
    admit(entry, scope) {
      const cookies = scope.leaseIds.size === 0 ? null : scope.cookiesOf(entry.pid);
      const leaseId = cookies?.leaseId;
      if (leaseId === undefined || !scope.leaseIds.has(leaseId)) return none;
      return [{ kind: 'lease-cookie', leaseId, runId: cookies?.runId ?? null }];
    },
    describe: (evidence) => [`cookie TREEWARDEN_LEASE_ID=${evidence.leaseId}`],
  },
  'cwd-in-run-dir': {
    stage: 'direct',
    admit(entry, scope) {
      const cwd = entry.cwd;
      if (cwd === null) return none;
      return fromAnchors(scope.anchors, (anchor) =>
        anchor.runDir && isInsideDir(cwd, anchor.runDir)
          ? { kind: 'cwd-in-run-dir', cwd, runDir: anchor.runDir, runId: anchor.runId, leaseId: anchor.leaseId ?? null }
          : null,
      );
    },
    describe: (evidence) => [`cwd ${evidence.cwd} inside run dir`],
  },
  'recorded-root': {
    stage: 'direct',
    admit: (entry, scope) =>
      fromAnchors(scope.anchors, (anchor) =>
        anchor.root && anchor.root.pid === entry.pid && anchor.root.startTime === entry.startTime
          ? { kind: 'recorded-root', root: anchor.root, runId: anchor.runId, leaseId: anchor.leaseId ?? null }
          : null,
      ),
    describe: () => ['recorded identity of the run root'],
  },
  'dead-holder-session': {
    stage: 'direct',
    admit(entry, scope) {
      const session = scope.deadSessions.get(entry.sid);
      if (session === undefined || !startedNoEarlier(entry, session.holder)) return none;
      return [
        { kind: 'dead-holder-session', holder: session.holder, sid: entry.sid, runId: null, leaseId: session.leaseId },
      ];
    },
    describe: (evidence) => [`in the session of dead lease holder ${evidence.holder.pid}`],
  },
  'adopted-by-guardian': {
    stage: 'direct',
    admit: (entry, scope) =>
      scope.adopterPids.has(entry.ppid)
        ? [{ kind: 'adopted-by-guardian', guardianPid: entry.ppid, runId: null, leaseId: null }]
        : none,
    describe: (evidence) => [
      `child of guardian ${evidence.guardianPid} (adopted by the subreaper or spawned as a run)`,
    ],
  },
  'in-run-cgroup': {
    stage: 'direct',
    admit(entry, scope) {
      const cgroup = scope.cgroupOf(entry.pid);
      if (cgroup === null) return none;
      return [{ kind: 'in-run-cgroup', path: cgroup.path, runId: cgroup.runId, leaseId: cgroup.leaseId }];
    },
    describe: (evidence) => [`in the run's cgroup ${evidence.path}`],
  },
} as const satisfies EvidenceRules;

/** Kinds in `EVIDENCE_KINDS` order, split by stage. */
export const DIRECT_KINDS = kindsOfStage('direct');
export const THROUGH_MEMBER_KINDS = kindsOfStage('through-member');

function kindsOfStage(stage: EvidenceRule<EvidenceKind>['stage']): readonly EvidenceKind[] {
  return (Object.keys(EVIDENCE_KINDS) as EvidenceKind[]).filter((kind) => EVIDENCE_KINDS[kind].stage === stage);
}

/** Every piece of evidence of `kind` for `entry` in `scope`. */
export function admitBy<K extends EvidenceKind>(
  kind: K,
  entry: ProcessEntry,
  scope: AdmissionScope,
): readonly EvidenceOf<K>[] {
  const rule = EVIDENCE_KINDS[kind] as unknown as EvidenceRule<K>;
  return rule.admit(entry, scope);
}

/** Evidence in the words a person checks against the table (start times as wall-clock time where known). */
export function describeEvidence(evidence: Evidence, context: DescribeContext = {}): readonly string[] {
  const rule = EVIDENCE_KINDS[evidence.kind] as unknown as EvidenceRule<typeof evidence.kind>;
  return rule.describe(evidence, { entry: context.entry ?? null, clock: context.clock ?? systemStartClock() });
}

/** Linux start times are clock ticks since boot: comparable as numbers. Unknown formats never match. */
function startedNoEarlier(entry: ProcessIdentity, holder: ProcessIdentity): boolean {
  const own = Number(entry.startTime);
  const theirs = Number(holder.startTime);
  return Number.isFinite(own) && Number.isFinite(theirs) && holder.startTime !== '' && own >= theirs;
}
