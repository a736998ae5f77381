/**
 * When the guardian dies before its lease ended (SIGKILL, OOM killer) while the holder lives, the
 * holder takes its runs over: each run's tree is owned again from its root identity, its timeout
 * keeps its original deadline, and its end is recorded by the holder. The holder is alive and
 * asked for that timeout, so it keeps it rather than ending the trees at once. The holder
 * becomes the writer of the lease file and of the lease's ledger records from then on.
 */
import { appendLedgerRecord } from '../ledger/append.js';
import { recordRunEnd } from '../ledger/record-run.js';
import type { LedgerActor, LedgerEntry } from '../ledger/records.js';
import { type AdoptedRootOptions, adoptRootProcess } from '../run/adopted-root.js';
import { adoptRun } from '../run/start-run.js';
import type { Run, RunOutcome, RunSpec } from '../run/types.js';
import type { StatePaths } from '../state/state-dir.js';
import { readStatFields } from '../table/linux-stat.js';
import type { ProcessIdentity } from '../table/types.js';
import type { LeaseRun } from './lease-run.js';
import { type LeaseFile, leaseFilePath, readLeaseFile, writeLeaseFile } from './registry.js';

export interface GuardianLoss {
  readonly guardian: ProcessIdentity;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly atMs: number;
  /** Runs this holder now supervises itself. */
  readonly runsTakenOver: readonly string[];
}

export interface TakeoverContext {
  readonly leaseId: string;
  readonly paths: StatePaths;
  readonly actor: LedgerActor;
  readonly guardian: ProcessIdentity;
  /** The specs the runs were started with (runId, leaseId, timeout, grace, keepDescendants). */
  readonly specs: ReadonlyMap<string, RunSpec>;
  /** Present when this holder is a child subreaper: orphaned roots are its children then. */
  readonly waitChild?: AdoptedRootOptions['waitChild'];
  log(line: string): void;
}

/** Takes every run still going over; records the loss. Returns the loss and the local runs. */
export function takeOverRuns(
  context: TakeoverContext,
  runs: ReadonlyMap<string, LeaseRun>,
  how: { readonly exitCode: number | null; readonly signal: string | null },
): { loss: GuardianLoss; taken: Run[] } {
  const taken: Run[] = [];
  const runsTakenOver: string[] = [];
  for (const [runId, run] of runs) {
    const spec = context.specs.get(runId);
    const local =
      spec === undefined ? null : run.takeOver((root, spawnedAtMs) => adoptOne(context, spec, root, spawnedAtMs));
    if (local === null) {
      if (run.phase === 'ended') continue;
      run.abandon(`lease guardian ${context.guardian.pid} died before the run's root was reported`);
      // Recorded as over, so that the orphan scan reports whatever of it may have started.
      void run.outcome.then((outcome) => recordTakenOverEnd(context, outcome));
      continue;
    }
    taken.push(local);
    runsTakenOver.push(runId);
    void local.outcome.then((outcome) => recordTakenOverEnd(context, outcome));
  }
  const loss: GuardianLoss = { guardian: context.guardian, ...how, atMs: Date.now(), runsTakenOver };
  writeQuietly(context, () => {
    const { guardian, exitCode, signal } = loss;
    const entry: LedgerEntry = {
      kind: 'guardian_lost',
      leaseId: context.leaseId,
      guardian,
      exitCode,
      signal,
      runsTakenOver,
    };
    appendLedgerRecord(context.paths.ledgerFile, entry, context.actor);
    patchLeaseFile(context.paths, context.leaseId, () => ({ guardianLostAt: new Date(loss.atMs).toISOString() }));
  });
  return { loss, taken };
}

function adoptOne(context: TakeoverContext, spec: RunSpec, root: ProcessIdentity, spawnedAtMs: number): Run {
  const adopted = adoptRootProcess({
    identity: root,
    readStat: readRootStat,
    ...(context.waitChild === undefined ? {} : { waitChild: context.waitChild }),
  });
  return adoptRun(spec, { root: adopted, startedAtMs: spawnedAtMs });
}

function readRootStat(pid: number) {
  const stat = readStatFields(pid);
  return stat === null ? null : { startTime: stat.startTicks, state: stat.state };
}

function recordTakenOverEnd(context: TakeoverContext, outcome: RunOutcome): void {
  writeQuietly(context, () => {
    recordRunEnd(context.paths.ledgerFile, outcome, context.leaseId, context.actor);
    patchLeaseFile(context.paths, context.leaseId, (file) => ({
      runs: file.runs.map((info) =>
        info.runId !== outcome.runId
          ? info
          : {
              ...info,
              endedAt: new Date().toISOString(),
              classification: outcome.classification,
              ...((outcome.kept?.length ?? 0) > 0 ? { kept: outcome.kept } : {}),
            },
      ),
    }));
  });
}

/**
 * Release after the guardian was lost: the holder ends what it took over (the same revalidated
 * tree kill), then records the lease's end as the guardian would have.
 */
export async function releaseWithoutGuardian(
  context: TakeoverContext,
  taken: readonly Run[],
  waitMs: number,
): Promise<void> {
  const going = taken.filter((run) => run.phase !== 'ended');
  for (const run of going) run.cancel('lease released', 'lease');
  const outcomes = await settleWithin(
    going.map((run) => run.outcome),
    waitMs,
  );
  const now = new Date().toISOString();
  const entry: LedgerEntry = {
    kind: 'lease_end',
    leaseId: context.leaseId,
    reason: 'released',
    runsEnded: going.map((run) => run.id),
    survivors: outcomes.flatMap((outcome) => outcome?.survivors ?? []),
  };
  writeQuietly(context, () => {
    patchLeaseFile(context.paths, context.leaseId, () => ({ releasedAt: now, endedAt: now, endReason: 'released' }));
    appendLedgerRecord(context.paths.ledgerFile, entry, context.actor);
  });
}

function settleWithin(promises: readonly Promise<RunOutcome>[], ms: number): Promise<(RunOutcome | null)[]> {
  return new Promise((resolve) => {
    const results: (RunOutcome | null)[] = promises.map(() => null);
    const timer = setTimeout(() => resolve(results), ms);
    void Promise.all(
      promises.map((promise, index) =>
        promise.then((outcome) => {
          results[index] = outcome;
        }),
      ),
    ).then(() => {
      clearTimeout(timer);
      resolve(results);
    });
  });
}

/** The guardian, the lease file's writer until now, is dead: the holder rewrites the file whole. */
function patchLeaseFile(paths: StatePaths, leaseId: string, patch: (file: LeaseFile) => Partial<LeaseFile>): void {
  const file = readLeaseFile(leaseFilePath(paths, leaseId));
  if (file !== null) writeLeaseFile(paths, { ...file, ...patch(file) });
}

/** A failed state write (disk full) must not stop the holder from supervising. */
function writeQuietly(context: TakeoverContext, write: () => void): void {
  try {
    write();
  } catch (error) {
    context.log(
      `treewarden: recording the guardian's loss failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
