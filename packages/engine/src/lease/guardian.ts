import { appendLedgerRecord } from '../ledger/append.js';
import { recordRunEnd, recordRunStart } from '../ledger/record-run.js';
import type { LedgerActor } from '../ledger/records.js';
import type { Run, RunSpec } from '../run/types.js';
import { normalizeTimeout } from '../run/validate.js';
import { withDeadline } from '../runtime/wait.js';
import { createRunDir } from '../state/state-dir.js';
import { isZombie, type ProcessIdentity } from '../table/types.js';
import type { GuardianDeps } from './guardian-deps.js';
import { type EndSummary, RUNS_END_WAIT_MS, sweepLease } from './guardian-sweep.js';
import type { GuardianConfig, HolderMessage } from './protocol.js';
import { type LeaseFile, type LeaseRunInfo, writeLeaseFile } from './registry.js';

export type { GuardianDeps } from './guardian-deps.js';

export interface Guardian {
  handle(message: HolderMessage): void;
  /** Reaps adopted orphans that stayed zombies across two ticks. */
  reapTick(): void;
  end(reason: 'released' | 'holder_died'): Promise<EndSummary>;
  leaseFile(): LeaseFile;
}

interface HostedRun {
  readonly run: Run;
  info: LeaseRunInfo;
  /** The owned tree as last observed (the root until the first observation). */
  members: readonly ProcessIdentity[];
}

/** Beyond a kept run's own deadline, how long its tree kill may take before the guardian ends it itself. */
export const KEPT_RUN_END_MARGIN_MS = RUNS_END_WAIT_MS;

export function createGuardian(config: GuardianConfig, deps: GuardianDeps): Guardian {
  const actor: LedgerActor = { role: 'guardian', pid: deps.self.pid, startTime: deps.self.startTime };
  const runs = new Map<string, HostedRun>();
  let lease: LeaseFile = {
    v: 1,
    id: config.leaseId,
    name: config.name,
    holder: config.holder,
    ...(config.holderLabel !== undefined ? { holderLabel: config.holderLabel } : {}),
    ...(config.holderSession !== undefined ? { holderSession: config.holderSession } : {}),
    guardian: deps.self,
    createdAt: new Date().toISOString(),
    subreaper: deps.containment.kind === 'linux-subreaper' && deps.containment.active,
    runs: [],
  };
  let ending = false;
  let zombiesSeen = new Set<number>();

  const saveLease = (patch: Partial<LeaseFile> = {}) => {
    lease = { ...lease, ...patch, runs: [...runs.values()].map((hosted) => hosted.info) };
    writeLeaseFile(deps.paths, lease);
  };
  const record = (entry: Parameters<typeof appendLedgerRecord>[1]) =>
    appendLedgerRecord(deps.paths.ledgerFile, entry, actor);
  // A failed ledger or registry write (disk full) must not stop the guardian from hosting runs.
  const guard = (write: () => void) => {
    try {
      write();
    } catch (error) {
      deps.log?.(`state write failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  saveLease();
  record({
    kind: 'lease_start',
    leaseId: lease.id,
    name: lease.name,
    holder: lease.holder,
    guardian: deps.self,
    subreaper: lease.subreaper,
  });

  function startHosted(runId: string, requested: RunSpec, environ: string | undefined): void {
    if (ending || runs.has(runId)) {
      deps.send({ t: 'failed', runId, error: ending ? 'the lease is ending' : `run id ${runId} is already in use` });
      return;
    }
    let runDir: string;
    let run: Run;
    // Taken before the supervisor starts its own clock, so the recorded deadline is never late.
    const startedAtMs = Date.now();
    try {
      runDir = createRunDir(deps.paths, runId);
      run = deps.startRun({ ...requested, runId, leaseId: lease.id, cwd: requested.cwd ?? runDir }, environ);
    } catch (error) {
      deps.send({ t: 'failed', runId, error: error instanceof Error ? error.message : String(error) });
      return;
    }
    const hosted: HostedRun = {
      run,
      info: runInfo(runId, runDir, requested, run.identity, startedAtMs),
      members: run.identity === null ? [] : [run.identity],
    };
    runs.set(runId, hosted);
    if (run.identity !== null) deps.containment.adopt(run.identity.pid);
    run.subscribe((event) => {
      if (event.type === 'spawned') {
        hosted.info = { ...hosted.info, pid: event.identity.pid, startTime: event.identity.startTime };
        hosted.members = [event.identity];
      } else if (event.type === 'members') hosted.members = event.members;
      deps.send({ t: 'event', runId, event });
    });
    saveLease();
    guard(() =>
      recordRunStart(
        deps.paths.ledgerFile,
        run,
        { ...requested, cwd: requested.cwd ?? runDir },
        actor,
        runDir,
        startedAtMs,
      ),
    );
    deps.send({
      t: 'started',
      runId,
      runDir,
      phase: run.phase,
      pid: hosted.info.pid,
      startTime: hosted.info.startTime,
    });
    void run.outcome.then((outcome) => {
      hosted.info = {
        ...hosted.info,
        endedAt: new Date().toISOString(),
        classification: outcome.classification,
        // Kept descendants leave the lease before the holder hears of the end, so a release that
        // follows the outcome can never sweep them.
        ...((outcome.kept?.length ?? 0) > 0 ? { kept: outcome.kept } : {}),
      };
      guard(() => saveLease());
      guard(() => recordRunEnd(deps.paths.ledgerFile, outcome, lease.id, actor));
      deps.send({ t: 'ended', runId, outcome });
    });
  }

  function rootPids(): Set<number> {
    const pids = new Set<number>();
    for (const hosted of runs.values()) if (hosted.info.pid !== null) pids.add(hosted.info.pid);
    return pids;
  }

  return {
    handle(message) {
      if (message.t === 'start') startHosted(message.runId, message.spec, message.environ);
      else runs.get(message.runId)?.run.cancel(message.reason ?? 'cancelled by the lease holder', message.by);
    },
    reapTick() {
      if (!deps.containment.active) return;
      const table = deps.readTable();
      if (table === null) return;
      const roots = rootPids();
      const zombies = [...table.entries.values()]
        .filter((entry) => entry.ppid === deps.self.pid && isZombie(entry) && !roots.has(entry.pid))
        .map((entry) => entry.pid);
      // A zombie libuv has not reaped yet is one of our own spawns; it never survives two ticks.
      deps.containment.reap(zombies.filter((pid) => zombiesSeen.has(pid)));
      zombiesSeen = new Set(zombies);
    },
    async end(reason) {
      ending = true;
      const hosted = [...runs.values()];
      const kept = hosted.filter(({ run, info }) => info.keepAfterLease === true && run.phase !== 'ended');
      const others = hosted.filter((entry) => !kept.includes(entry));
      const keptTrees = kept.flatMap((entry) => entry.members);
      const summary = await sweepLease({ lease: lease.id, runs: others, keptTrees, reason, deps, rootPids });
      record({
        kind: 'lease_end',
        leaseId: lease.id,
        reason,
        runsEnded: summary.runsEnded,
        survivors: summary.survivors,
        ...(kept.length > 0 ? { runsKept: kept.map(({ info }) => info.runId) } : {}),
      });
      // The lease file says "ended" only once nothing of it runs any more: until then the app shows
      // a live guardian supervising the kept runs, which is the truth.
      if (kept.length > 0) await outliveKeptRuns(kept, reason);
      const now = new Date().toISOString();
      saveLease(
        reason === 'released'
          ? { releasedAt: now, endedAt: now, endReason: reason }
          : { endedAt: now, endReason: reason },
      );
      return summary;
    },
    leaseFile: () => lease,
  };

  /** Waits for the kept runs to end on their own (their deadlines bound it); past that, ends them. */
  async function outliveKeptRuns(kept: readonly HostedRun[], reason: 'released' | 'holder_died'): Promise<void> {
    deps.log?.(`lease ended (${reason}); supervising ${kept.length} kept run(s) until they end`);
    const deadlines = kept.map(({ info }) => Date.parse(info.deadlineAt ?? '') || Date.now());
    const waitMs = Math.max(0, Math.max(...deadlines) - Date.now()) + KEPT_RUN_END_MARGIN_MS;
    const ended = await withDeadline(Promise.all(kept.map(({ run }) => run.outcome)), waitMs, 'the kept runs').then(
      () => true,
      () => false,
    );
    if (!ended) await sweepLease({ lease: lease.id, runs: kept, reason, deps, rootPids });
  }
}

function runInfo(
  runId: string,
  runDir: string,
  spec: RunSpec,
  identity: ProcessIdentity | null,
  startedAtMs: number,
): LeaseRunInfo {
  // The spec was validated by the supervisor already (it threw otherwise): this cannot throw.
  const timeoutSeconds = normalizeTimeout(spec.timeoutSeconds);
  return {
    runId,
    runDir,
    command: [spec.command, ...(spec.args ?? [])].join(' ').slice(0, 500),
    pid: identity?.pid ?? null,
    startTime: identity?.startTime ?? null,
    startedAt: new Date(startedAtMs).toISOString(),
    timeoutSeconds,
    deadlineAt: new Date(startedAtMs + timeoutSeconds * 1000).toISOString(),
    ...(spec.keepAfterLease === true ? { keepAfterLease: true } : {}),
  };
}
