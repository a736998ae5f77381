/**
 * killTree, cleanOrphans and releaseLease. Every kill goes through the engine's revalidated tree
 * kill; the host only finds which run a target belongs to (so the run cookie is used) and refuses
 * a stale row up front with a message the user can act on.
 */
import {
  killerOfReason,
  type ProcessIdentity,
  previewKill as previewEngineKill,
  readProcEntry,
  sameIdentity,
  toldEnd,
} from '@treewarden/engine';
import type { CommandOf, CommandResult, KillReport } from '@treewarden/protocol';
import { KILL_REASON_OF_KILLER } from '@treewarden/protocol/vocabulary';
import type { HostContext } from '../context.js';
import { scanLeaks } from '../poll/poller.js';
import { type RunRecord, toKillReport } from '../run-record.js';
import { collectLeaks } from '../snapshot/build-snapshot.js';
import { CommandRefusedError } from './run-commands.js';

function runOwning(context: HostContext, target: ProcessIdentity): RunRecord | undefined {
  for (const record of context.runs.values()) {
    if (record.membership.isMember(target) || (record.root !== null && sameIdentity(record.root, target)))
      return record;
  }
  return undefined;
}

/**
 * The run cookie widens a kill to every process carrying it, wherever it hid: right for the
 * run's root (or for a leaked member of an ended run), wrong for a subtree of a live run, which
 * must end only that subtree.
 */
function cookieFor(record: RunRecord | undefined, target: ProcessIdentity): string | undefined {
  if (record === undefined) return undefined;
  const isRoot = record.root !== null && sameIdentity(record.root, target);
  return isRoot || record.phase === 'ended' || record.unsupervised ? record.cookie : undefined;
}

/**
 * Killing the root of a live run this host started is the user cancelling that run: the run
 * supervisor does the same revalidated tree kill, and the run ends `cancelled` rather than as an
 * `error` by signal. Null when that does not apply (then the plain tree kill runs).
 */
async function cancelOwnRun(record: RunRecord | undefined, target: ProcessIdentity): Promise<KillReport | null> {
  if (record?.handle == null || record.phase === 'ended' || record.root === null) return null;
  if (!sameIdentity(record.root, target)) return null;
  const outcome = await record.handle.cancel();
  return outcome.kill === undefined ? null : toKillReport(outcome.kill);
}

/** The row the user clicked no longer describes the process that holds the pid. */
function refuseStale(target: ProcessIdentity, now: number): KillReport | null {
  const current = readProcEntry(target.pid);
  if (current === null || current.startTime === target.startTime) return null;
  const error =
    `refused: pid ${target.pid} now belongs to a different process (start time ${current.startTime}, ` +
    `you saw ${target.startTime}); nothing was signalled — refresh the view and choose again`;
  return {
    result: 'refused',
    target: { pid: target.pid, startTime: target.startTime },
    attempts: 0,
    killed: [],
    survivors: [],
    timeline: [{ atMs: 0, action: 'refused', pids: [target.pid], detail: error }],
    error,
    startedAtMs: now,
    durationMs: 0,
  };
}

/** Puts a kill on its run's record; a person's kill of the root makes the run's end theirs. */
function noteKill(record: RunRecord, target: ProcessIdentity, reason: string, report: KillReport): void {
  record.lastKill = report;
  const person = killerOfReason(reason);
  const ofRoot = record.root !== null && sameIdentity(record.root, target);
  if (person === undefined || !ofRoot || (report.result !== 'killed' && report.result !== 'kill_failed')) return;
  record.personKill = person;
  // Its supervisor may have reported the end (a death by signal) before this kill returned.
  if (record.phase !== 'ended' || record.classification === null) return;
  const told = toldEnd(
    {
      classification: record.classification,
      signal: record.signal,
      killedBy: record.killedBy ?? undefined,
      limit: record.limitTrip,
    },
    person,
  );
  record.classification = told.classification;
  record.killedBy = told.killedBy;
}

async function killOne(
  context: HostContext,
  target: ProcessIdentity,
  reason: string,
  graceMs?: number,
): Promise<KillReport> {
  const record = runOwning(context, target);
  const runId = cookieFor(record, target);
  const stale = refuseStale(target, context.now());
  const report =
    stale ??
    (await cancelOwnRun(record, target)) ??
    toKillReport(
      await context.port.killTree(target, {
        reason,
        reader: context.reader.lean,
        ...(runId === undefined ? {} : { runId }),
        ...(graceMs === undefined ? {} : { graceMs }),
      }),
    );
  // A foreign run's record is re-made when its facts change (its end arrived during the kill):
  // what the kill learned goes on the record shown now.
  const shown = record === undefined ? undefined : (context.runs.get(record.id) ?? record);
  if (shown !== undefined) noteKill(shown, target, reason, report);
  context.emit({ type: 'killOutcome', runId: shown?.id ?? null, report });
  context.requestPoll();
  return report;
}

export function handleKillTree(
  context: HostContext,
  command: CommandOf<'killTree'>,
): Promise<CommandResult<'killTree'>> {
  const graceMs = command.graceSeconds === undefined ? undefined : Math.round(command.graceSeconds * 1000);
  return killOne(context, command.target, KILL_REASON_OF_KILLER.ui, graceMs);
}

/** A confirmation shows a command line this long at most (the dialog wraps it). */
const MAX_PREVIEW_COMMAND = 2000;

/**
 * What killTree would end for `target`, found exactly as killOne finds it (the same run, the same
 * cookie, the same tree owner), signalling nothing: the kill confirmation lists these.
 */
export async function handlePreviewKill(
  context: HostContext,
  command: CommandOf<'previewKill'>,
): Promise<CommandResult<'previewKill'>> {
  const stale = refuseStale(command.target, context.now());
  if (stale !== null) return { refused: stale.error ?? 'refused', processes: [] };
  const runId = cookieFor(runOwning(context, command.target), command.target);
  const preview = await previewEngineKill(command.target, {
    reader: context.reader.lean,
    ...(runId === undefined ? {} : { runId }),
  });
  const entries = preview.members
    .map((member) => readProcEntry(member.pid))
    .filter((entry) => entry !== null && preview.members.some((member) => sameIdentity(member, entry)))
    .map((entry) => entry as NonNullable<typeof entry>);
  const inTree = new Set<number>([command.target.pid]);
  // Descendants through members only: a member whose parent chain does not reach the target escaped.
  let grew = true;
  while (grew) {
    grew = false;
    for (const entry of entries)
      if (!inTree.has(entry.pid) && inTree.has(entry.ppid)) {
        inTree.add(entry.pid);
        grew = true;
      }
  }
  return {
    refused: preview.refused,
    processes: entries.map((entry) => ({
      pid: entry.pid,
      startTime: entry.startTime,
      ppid: entry.ppid,
      commandLine: (entry.args.length > 0 ? entry.args.join(' ') : entry.command).slice(0, MAX_PREVIEW_COMMAND),
      startedAtMs: entry.startedAtMs,
      outsideTree: !inTree.has(entry.pid),
    })),
  };
}

interface LeakedProcess {
  readonly identity: ProcessIdentity;
  readonly ppid: number;
}

/** Only the top of each leaked tree is targeted: killing it takes its descendants along. */
function topsOf(leaked: readonly LeakedProcess[]): ProcessIdentity[] {
  const pids = new Set(leaked.map((process) => process.identity.pid));
  return leaked.filter((process) => !pids.has(process.ppid)).map((process) => process.identity);
}

/**
 * What a clean-up ends: the leaks the snapshot shows (a fresh engine scan joined with the live
 * members of ended or unsupervised runs), of one run or all. Unregistered trees — a run cookie
 * this state dir never recorded — only on an explicit ask, as `treewarden orphans --clean --all`.
 */
async function collectLeaked(
  context: HostContext,
  command: CommandOf<'cleanOrphans'>,
): Promise<{ readonly processes: LeakedProcess[]; readonly runIds: Set<string> }> {
  // A fresh scan: the periodic one may be seconds old, and cleaning acts on what is true now.
  await scanLeaks(context);
  const leaks = collectLeaks(context.runs.values(), context.orphans)
    .filter((orphan) => command.runId === undefined || orphan.runId === command.runId)
    .filter((orphan) => orphan.kind === 'over' || command.includeUnregistered === true);
  return {
    processes: leaks.map((orphan) => ({
      identity: { pid: orphan.process.pid, startTime: orphan.process.startTime },
      ppid: orphan.process.ppid,
    })),
    runIds: new Set(leaks.flatMap((orphan) => (orphan.runId === null ? [] : [orphan.runId]))),
  };
}

export async function handleCleanOrphans(
  context: HostContext,
  command: CommandOf<'cleanOrphans'>,
): Promise<CommandResult<'cleanOrphans'>> {
  const kills: KillReport[] = [];
  const { processes, runIds } = await collectLeaked(context, command);
  // A poll meanwhile would see the last process gone before its kill record is written and
  // settle the run as "its last process exited": held back until this clean-up's records are in.
  for (const runId of runIds) context.cleaningRuns.add(runId);
  try {
    for (const target of topsOf(processes)) kills.push(await killOne(context, target, 'orphan_clean'));
  } finally {
    for (const runId of runIds) context.cleaningRuns.delete(runId);
  }
  // Look again at once: the banner and the counts must not show what was just ended as alive.
  if (kills.length > 0) await scanLeaks(context);
  context.requestOrphanScan();
  return { kills };
}

export async function handleReleaseLease(
  context: HostContext,
  command: CommandOf<'releaseLease'>,
): Promise<CommandResult<'releaseLease'>> {
  const lease = context.ownLease(command.leaseId);
  if (lease === null) {
    if (context.released.has(command.leaseId)) return { released: false, kills: [] };
    throw new CommandRefusedError(
      `lease ${command.leaseId} is not held by this app: only its holder can release it; kill its runs' trees instead`,
    );
  }
  const outcomes = await lease.release();
  context.leasesByName.delete(lease.name);
  context.released.set(lease.id, { lease, releasedAtMs: context.now() });
  const kills = outcomes.map(toKillReport);
  for (const report of kills) context.emit({ type: 'killOutcome', runId: null, report });
  context.requestOrphanScan();
  return { released: true, kills };
}
