/**
 * Everything the state dir knows about runs and leases, folded into "which runs are over": a run
 * is over when the ledger holds its end, when its lease is over (released, ended, or its holder
 * and guardian are both dead), or when nothing alive could still end it (the process that
 * recorded its start is gone and no live lease holds it). Run dirs nobody recorded are over too.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { LeaseStatus } from '../lease/registry.js';
import type { LedgerRecord } from '../ledger/records.js';
import type { DeadSession } from '../membership/run-members.js';
import { createRunDirResolver, type RunDirResolver } from '../state/run-dir.js';
import type { StatePaths } from '../state/state-dir.js';
import type { ProcessIdentity } from '../table/types.js';

/** A run dir younger than this with no record may belong to a run being started right now. */
export const UNRECORDED_RUN_DIR_MIN_AGE_MS = 10_000;

export interface KnownRun {
  readonly runId: string;
  readonly leaseId: string | null;
  readonly runDir: string | null;
  readonly root: ProcessIdentity | null;
  /** Null while the run may still be supervised; otherwise why it is over. */
  readonly over: string | null;
  /** The ledger holds the run's start / its end. */
  readonly startRecorded: boolean;
  readonly endRecorded: boolean;
}

export interface RunIndex {
  readonly runs: ReadonlyMap<string, KnownRun>;
  /** Leases that are over: their cookie alone ties a process to something ended. */
  readonly deadLeases: ReadonlyMap<string, string>;
  /** Leases still held (or still being ended by a live guardian). */
  readonly liveLeases: ReadonlySet<string>;
  readonly guardians: ReadonlySet<number>;
  /** Dead holders that led their own session, by session id (see MembershipQuery.deadSessions). */
  readonly deadSessions: ReadonlyMap<number, DeadSession>;
  /** Descendants runs kept on purpose (`keepDescendants`): never leaks. */
  readonly kept: readonly ProcessIdentity[];
}

interface Draft {
  leaseId: string | null;
  runDir: string | null;
  root: ProcessIdentity | null;
  ended: string | null;
  recorderAlive: boolean;
  started: boolean;
  endRecorded: boolean;
}

/** A lease as people named it, with the id that tells two of the same name apart. */
function leaseText(lease: LeaseStatus['lease']): string {
  return lease.name === '' || lease.name === lease.id ? lease.id : `${lease.name} (${lease.id})`;
}

function leaseOverReason(status: LeaseStatus): string | null {
  const lease = leaseText(status.lease);
  if (status.state === 'released') return `lease ${lease} was released`;
  if (status.state === 'ended') return `lease ${lease} ended: its holder died`;
  if (status.state === 'holder_dead' && !status.guardianAlive) {
    return `lease ${lease}: holder and guardian are both dead`;
  }
  return null;
}

export function buildRunIndex(
  paths: StatePaths,
  records: readonly LedgerRecord[],
  leases: readonly LeaseStatus[],
  isAlive: (identity: ProcessIdentity) => boolean,
  now: number = Date.now(),
): RunIndex {
  // A recorded run dir outside runs/ (or escaping it through a symlink) is no evidence at all.
  const resolveRunDir = createRunDirResolver(paths);
  const drafts = new Map<string, Draft>();
  const kept: ProcessIdentity[] = [];
  const draftOf = (runId: string): Draft => {
    let draft = drafts.get(runId);
    if (draft === undefined) {
      draft = {
        leaseId: null,
        runDir: null,
        root: null,
        ended: null,
        recorderAlive: false,
        started: false,
        endRecorded: false,
      };
      drafts.set(runId, draft);
    }
    return draft;
  };
  for (const record of records) {
    if (record.kind === 'run_start') {
      const draft = draftOf(record.runId);
      draft.started = true;
      draft.leaseId = record.leaseId ?? draft.leaseId;
      draft.runDir = (record.runDir !== undefined ? resolveRunDir(record.runDir) : null) ?? draft.runDir;
      if (record.pid !== null && record.startTime !== null)
        draft.root = { pid: record.pid, startTime: record.startTime };
      draft.recorderAlive =
        record.by.startTime !== undefined && isAlive({ pid: record.by.pid, startTime: record.by.startTime });
    } else if (record.kind === 'run_end') {
      const draft = draftOf(record.runId);
      draft.ended ??= `run ended (${record.classification}) at ${record.at}`;
      draft.endRecorded = true;
      kept.push(...(record.kept ?? []));
    }
  }
  const deadLeases = new Map<string, string>();
  const liveLeases = new Set<string>();
  const guardians = new Set<number>();
  const deadSessions = new Map<number, DeadSession>();
  for (const status of leases) {
    const over = leaseOverReason(status);
    if (over === null) liveLeases.add(status.lease.id);
    else deadLeases.set(status.lease.id, over);
    if (status.guardianAlive) guardians.add(status.lease.guardian.pid);
    const session = status.lease.holderSession;
    // Only a holder that died (not one that released) and that led its own session.
    if (
      status.lease.endReason !== 'released' &&
      over !== null &&
      !status.holderAlive &&
      session?.sid === status.lease.holder.pid
    ) {
      deadSessions.set(session.sid, { leaseId: status.lease.id, holder: status.lease.holder });
    }
    for (const run of status.lease.runs) {
      kept.push(...(run.kept ?? []));
      const draft = draftOf(run.runId);
      draft.leaseId = status.lease.id;
      draft.runDir ??= resolveRunDir(run.runDir);
      if (draft.root === null && run.pid !== null && run.startTime !== null)
        draft.root = { pid: run.pid, startTime: run.startTime };
    }
  }
  addUnrecordedRunDirs(paths, resolveRunDir, drafts, now);
  const runs = new Map<string, KnownRun>();
  for (const [runId, draft] of drafts) {
    const leaseOver = draft.leaseId !== null ? (deadLeases.get(draft.leaseId) ?? null) : null;
    const heldByLiveLease = draft.leaseId !== null && liveLeases.has(draft.leaseId);
    const orphaned = !heldByLiveLease && !draft.recorderAlive ? 'nobody alive supervises it any more' : null;
    const over = draft.ended ?? leaseOver ?? orphaned;
    runs.set(runId, {
      runId,
      leaseId: draft.leaseId,
      runDir: draft.runDir,
      root: draft.root,
      over,
      startRecorded: draft.started,
      endRecorded: draft.endRecorded,
    });
  }
  return { runs, deadLeases, liveLeases, guardians, deadSessions, kept };
}

function addUnrecordedRunDirs(
  paths: StatePaths,
  resolveRunDir: RunDirResolver,
  drafts: Map<string, Draft>,
  now: number,
): void {
  let names: string[];
  try {
    names = readdirSync(paths.runsDir);
  } catch {
    return;
  }
  for (const name of names) {
    const runDir = resolveRunDir(join(paths.runsDir, name));
    if (runDir === null) continue;
    const known = drafts.get(name);
    if (known !== undefined) {
      known.runDir ??= runDir;
      continue;
    }
    let ageMs = 0;
    try {
      ageMs = now - statSync(runDir).mtimeMs;
    } catch {
      continue;
    }
    if (ageMs < UNRECORDED_RUN_DIR_MIN_AGE_MS) continue;
    drafts.set(name, {
      leaseId: null,
      runDir,
      root: null,
      ended: 'run dir with no record',
      recorderAlive: false,
      started: false,
      endRecorded: false,
    });
  }
}
