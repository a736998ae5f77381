/**
 * The run supervisor: validate, launch in its own session, read the root's identity, observe the
 * tree, enforce the timeout, end leftovers, classify. Reads top to bottom as the run's life:
 * `startRun` → `launch` → (`onTimeout` | `cancel` | `onRootExit`) → `finish`.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { classifyExit } from '../classify/classify-exit.js';
import type { OwnerKill } from '../kill/owner-kill.js';
import type { KillOptions } from '../kill/types.js';
import type { CookieReader, OtherUserCarrier } from '../membership/cookie.js';
import { createTreeOwner, type RevalidatingTreeOwner } from '../ownership/tree-owner.js';
import type { TreeOwnerOptions } from '../ownership/types.js';
import type { BaseEnvironment } from '../runtime/environment.js';
import type { SignalOps } from '../signal/types.js';
import { readStatFields } from '../table/linux-stat.js';
import { createTableReader } from '../table/reader.js';
import type { ProcessIdentity, ProcessTable, TableReader } from '../table/types.js';
import type { AdoptedRootExit } from './adopted-root.js';
import { type CapturedOutput, captureOutput } from './capture-output.js';
import { createRunCgroup, type RunCgroup, removeRunCgroup } from './cgroup.js';
import { endRunCgroup, readCgroupMembers } from './cgroup-end.js';
import { CGROUP_HOME_NAME, type CgroupProbe } from './cgroup-probe.js';
import { sweepEmptyRunCgroups } from './cgroup-sweep.js';
import { launchWorker } from './launch.js';
import { createLimitChecker, describeTrip, type LimitChecker } from './limit-check.js';
import {
  hasLimits,
  LIMIT_CLASSIFICATIONS,
  type LimitClassification,
  type LimitMethods,
  type LimitTrip,
  type RunLimits,
} from './limits.js';
import { type ObserveLoop, ownedTreeRefresh, RUN_POLL_INTERVAL_MS, startObserveLoop } from './observe-loop.js';
import { identityOf, otherUserLeftoversMessage } from './other-user-leftovers.js';
import { createRootProcess, type RootExit, type RootProcess, type RootStat } from './root-process.js';
import { stopTree, type TreeStopResult } from './stop-tree.js';
import type { Classification, Killer, Run, RunEvent, RunOutcome, RunPhase, RunSpec } from './types.js';
import { validateRunSpec } from './validate.js';

/**
 * How long a root's exit waits, at most, for environs that read empty (an execve in progress)
 * before it says there are no leftovers. Paid only while such a process exists.
 */
export const LEFTOVER_COOKIE_SETTLE_MS = 200;

export interface RunDeps {
  /** The tree owner; default `createTreeOwner` from ownership/tree-owner.ts. */
  readonly createOwner?: (root: ProcessIdentity, options: TreeOwnerOptions) => RevalidatingTreeOwner;
  /** The kill of the owner's tree; default `killOwnedTree` from kill/owner-kill.ts. */
  readonly killOwner?: OwnerKill;
  readonly reader?: TableReader;
  readonly signals?: SignalOps;
  /** How run cookies are read (default readRunCookies). Injected only to stage an execve's empty environ. */
  readonly readCookies?: CookieReader;
  /** Start time and state of one pid, read synchronously (default: /proc/PID/stat on Linux). */
  readonly readEntry?: (pid: number) => RootStat | null;
  /** Schedules the timeout; returns a cancel function. Injected by tests to stage exact races. */
  readonly scheduleTimeout?: (fire: () => void, ms: number) => () => void;
  readonly pollIntervalMs?: number;
  readonly now?: () => number;
  /** Where `cgroup: true` looks for a parent (default: probeCgroup). Injected only to stage "none here". */
  readonly probeCgroup?: () => CgroupProbe;
  /**
   * The environment the spec's `env` goes on top of (default: this process's). The guardian
   * passes what its holder sent (a block, or `{}` when the holder put it all in the spec's
   * `env`), never its own: it starts with a small one, and copying `process.env` is quadratic in
   * its size (runtime/environment.ts).
   */
  readonly baseEnvironment?: BaseEnvironment;
}

interface EndFacts {
  readonly classification: Classification;
  readonly stop?: TreeStopResult;
  readonly leftovers?: readonly ProcessIdentity[];
  readonly kept?: readonly ProcessIdentity[];
  readonly error?: string;
  readonly limit?: LimitTrip;
  /** Overrides the stop's survivors once the run's cgroup was killed too. */
  readonly survivors?: readonly ProcessIdentity[];
  readonly killedBy?: Killer;
}

type StopReason = 'timeout' | 'cancelled' | LimitClassification;

/**
 * An adopted run's output pipes went with the guardian that launched it: no output can be seen,
 * so an idle timeout would only ever be a false positive. The other limits still hold.
 */
function enforceableAfterAdoption(limits: RunLimits): RunLimits {
  const { idleTimeoutSeconds: _unseen, ...rest } = limits;
  return rest;
}

function scheduleWithTimer(fire: () => void, ms: number): () => void {
  const timer = setTimeout(fire, ms);
  return () => clearTimeout(timer);
}

/**
 * The reader for owner and kill. On Linux undefined: the owner makes the platform reader itself
 * and the root's identity comes from /proc/PID/stat at once. Elsewhere the run needs the
 * platform's reader of its own too, to read the root's identity later (readIdentityLater).
 */
function platformReader(injected: TableReader | undefined): TableReader | undefined {
  if (injected !== undefined || process.platform === 'linux') return injected;
  try {
    return createTableReader();
  } catch {
    return undefined; // unsupported platform: supervision falls back to the root alone
  }
}

/**
 * /proc/PID/stat alone gives the identity synchronously; a fuller read (argv, cwd) can miss a
 * worker that is exiting right now, though its unreaped stat is still there. Elsewhere the
 * identity is read later through the platform reader.
 */
function readRootStat(pid: number): RootStat | null {
  if (process.platform !== 'linux') return null;
  const stat = readStatFields(pid);
  return stat === null ? null : { startTime: stat.startTicks, state: stat.state };
}

class RunSupervisor implements Run {
  readonly id: string;
  readonly leaseId: string;
  readonly outcome: Promise<RunOutcome>;
  identity: ProcessIdentity | null = null;
  phase: RunPhase = 'starting';
  private readonly listeners = new Set<(event: RunEvent) => void>();
  private readonly now: () => number;
  private readonly startedAtMs: number;
  private resolveOutcome: (outcome: RunOutcome) => void = () => {};
  private root: RootProcess | null = null;
  private owner: RevalidatingTreeOwner | null = null;
  private output: CapturedOutput | null = null;
  private loop: ObserveLoop | null = null;
  private cancelTimeout: () => void = () => {};
  /** The owner carries the run cookie, reader and signals; the kill needs only its bounds. */
  private readonly killOptions: KillOptions;
  private readonly reader: TableReader | undefined;
  /** Null when the run has no limits: the refresh then checks nothing. */
  private readonly limits: LimitChecker | null;
  /** The run's own cgroup v2 (`cgroup: true`), or null. */
  readonly cgroup: RunCgroup | null;
  readonly limitMethods?: LimitMethods;

  constructor(
    private readonly spec: RunSpec,
    private readonly deps: RunDeps,
    adopted?: AdoptedStart,
  ) {
    const validated = validateRunSpec(spec, deps.probeCgroup); // throws RunSpecError before anything launches
    this.now = deps.now ?? Date.now;
    this.startedAtMs = adopted?.startedAtMs ?? this.now();
    this.id = spec.runId ?? randomUUID();
    this.cgroup = validated.cgroupParent === undefined ? null : openCgroup(validated.cgroupParent, this.id, adopted);
    this.leaseId = spec.leaseId ?? this.id;
    this.reader = platformReader(deps.reader);
    this.killOptions = validated.graceMs === undefined ? {} : { graceMs: validated.graceMs };
    const limits = adopted === undefined ? validated.limits : enforceableAfterAdoption(validated.limits);
    this.limits = hasLimits(limits) ? createLimitChecker(limits, this.now, this.cgroup ?? undefined) : null;
    if (this.limits !== null) this.limitMethods = this.limits.methods;
    this.outcome = new Promise((resolve) => {
      this.resolveOutcome = resolve;
    });
    if (adopted === undefined) this.launch(validated.timeoutMs);
    else this.adopt(adopted.root, validated.timeoutMs - (this.now() - adopted.startedAtMs));
  }

  subscribe(listener: (event: RunEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  cancel(reason = 'cancelled', by?: Killer): void {
    // Once the root exited on its own the run is already ending (leftovers are being handled).
    if (this.phase !== 'running' || this.root?.exit() != null) return;
    void this.stopAndFinish('cancelled', reason, undefined, by);
  }

  private emit(event: RunEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A faulty listener must not break supervision.
      }
    }
  }

  /** For events raised inside startRun: delivered once the caller had a chance to subscribe. */
  private emitSoon(event: RunEvent): void {
    queueMicrotask(() => this.emit(event));
  }

  private setPhase(phase: RunPhase): void {
    this.phase = phase;
    this.emit({ type: 'phase', phase });
  }

  private launch(timeoutMs: number): void {
    const launched = launchWorker(
      this.spec,
      { runId: this.id, leaseId: this.leaseId },
      this.cgroup ?? undefined,
      this.deps.baseEnvironment,
    );
    if (launched.kind === 'failed') {
      void launched.failure.then((failure) =>
        this.finish({ classification: failure.classification, error: failure.error }),
      );
      return;
    }
    const { child, pid } = launched;
    // Read the identity before anything else runs: the pid is ours and unreaped right now.
    this.root = createRootProcess(child, pid, this.deps.readEntry ?? readRootStat, this.now);
    this.identity = this.root.identity;
    if (this.spec.output !== 'inherit') {
      this.output = captureOutput(child, {
        ...(this.spec.output === 'tee' ? { forward: { stdout: process.stdout, stderr: process.stderr } } : {}),
        onText: (stream, text) => {
          this.limits?.noteOutput();
          if (this.listeners.size > 0) this.emit({ type: 'output', stream, text });
        },
      });
    }
    if (this.identity !== null) this.superviseTree(this.identity);
    else void this.readIdentityLater(pid);
    const schedule = this.deps.scheduleTimeout ?? scheduleWithTimer;
    this.cancelTimeout = schedule(() => this.onTimeout(), timeoutMs);
    void this.root.exited.then((exit) => this.onRootExit(exit));
    this.phase = 'running';
    this.emitSoon({ type: 'phase', phase: 'running' });
  }

  /** Supervision of a root someone else launched, with what is left of its timeout. */
  private adopt(root: RootProcess, remainingMs: number): void {
    this.root = root;
    this.identity = root.identity;
    if (this.identity !== null) this.superviseTree(this.identity);
    const schedule = this.deps.scheduleTimeout ?? scheduleWithTimer;
    this.cancelTimeout = schedule(() => this.onTimeout(), Math.max(0, remainingMs));
    void root.exited.then((exit) => this.onRootExit(exit));
    this.phase = 'running';
    this.emitSoon({ type: 'phase', phase: 'running' });
  }

  /** Owns and observes the tree under `identity` from now on. */
  private superviseTree(identity: ProcessIdentity): void {
    const createOwner = this.deps.createOwner ?? createTreeOwner;
    this.owner = createOwner(identity, {
      runId: this.id,
      ...(this.reader === undefined ? {} : { reader: this.reader }),
      ...(this.deps.signals === undefined ? {} : { signals: this.deps.signals }),
      ...(this.deps.readCookies === undefined ? {} : { readCookies: this.deps.readCookies }),
    });
    const refresh = ownedTreeRefresh(this.owner, this.reader);
    const interval = this.deps.pollIntervalMs ?? RUN_POLL_INTERVAL_MS;
    this.loop = startObserveLoop(
      this.owner,
      refresh,
      interval,
      (members) => this.emit({ type: 'members', members }),
      (table, members) => this.checkLimits(table, members),
    );
    this.emitSoon({ type: 'spawned', identity });
  }

  /**
   * Where /proc is not there (macOS, Windows) the identity comes from the platform reader. The pid
   * is still unreaped until 'exit' fires, so an identity read before that is the worker's own.
   */
  private async readIdentityLater(pid: number): Promise<void> {
    let startTime: string | undefined;
    try {
      startTime = (await this.reader?.readTrees([pid]))?.entries.get(pid)?.startTime;
    } catch {
      // No table this time: the run is supervised by its root only (direct kill).
    }
    if (startTime === undefined || this.phase !== 'running' || this.root === null) return;
    if (!this.root.adoptIdentity(startTime)) return;
    this.identity = this.root.identity;
    if (this.identity !== null) this.superviseTree(this.identity);
  }

  /** A worker whose exit status is already there when the timer fires won the race: it is not a timeout. */
  private onTimeout(): void {
    if (this.phase !== 'running' || this.root === null) return;
    if (this.root.hasExitStatus()) return; // 'exit' is on its way; onRootExit classifies it
    void this.stopAndFinish('timeout', undefined);
  }

  /** After each refresh: a limit over its value ends the tree, exactly as the timeout does. */
  private checkLimits(table: ProcessTable | null, members: readonly ProcessIdentity[]): void {
    if (this.limits === null || this.phase !== 'running' || this.root === null) return;
    const trip = this.limits.check(table, members);
    if (trip === null) return;
    // As for the timeout: a root whose exit status is already there ended on its own.
    if (this.root.hasExitStatus()) return;
    void this.stopAndFinish(LIMIT_CLASSIFICATIONS[trip.name], describeTrip(trip), trip);
  }

  private async stopAndFinish(
    reason: StopReason,
    detail: string | undefined,
    limit?: LimitTrip,
    by?: Killer,
  ): Promise<void> {
    const killedBy: Killer | undefined = reason === 'timeout' ? 'timeout' : limit !== undefined ? 'limit' : by;
    this.setPhase('stopping');
    this.cancelTimeout();
    this.loop?.stop();
    const root = this.root as RootProcess;
    const stop = await stopTree(this.owner, root, this.killOptions, this.deps.killOwner);
    const swept = this.cgroup === null ? null : await endRunCgroup(this.cgroup, stop.survivors);
    const otherUsers = this.owner?.otherUserCarriers() ?? [];
    const survivors = uniqueIdentities([...(swept?.survivors ?? stop.survivors), ...otherUsers.map(identityOf)]);
    const classification = survivors.length > 0 ? 'kill_failed' : reason;
    const failure =
      swept?.error ??
      stop.error ??
      (otherUsers.length > 0 ? otherUserLeftoversMessage(otherUsers) : 'the tree outlived every kill attempt');
    const error = survivors.length > 0 ? failure : detail;
    await this.finish({
      classification,
      stop,
      survivors,
      ...(error === undefined ? {} : { error }),
      ...(limit === undefined ? {} : { limit }),
      ...(killedBy === undefined ? {} : { killedBy }),
    });
  }

  private async onRootExit(exit: RootExit): Promise<void> {
    if (this.phase !== 'running') return; // a stop is in progress and waits for this exit itself
    this.cancelTimeout();
    this.loop?.stop();
    // The cgroup also holds members the owner never saw (an escapee that cleared its cookie).
    const left = uniqueIdentities([...(await this.findLeftovers()), ...this.unseenCgroupMembers()]);
    const otherUsers = this.owner?.otherUserCarriers() ?? [];
    if (left.length === 0 && otherUsers.length === 0) return this.finishExit(exit, {});
    if (this.spec.keepDescendants === true)
      return this.finishExit(exit, { kept: uniqueIdentities([...left, ...otherUsers.map(identityOf)]) });
    if (left.length === 0) return this.finishOtherUsers(otherUsers, {});
    this.setPhase('stopping');
    const stop = await stopTree(this.owner, this.root as RootProcess, this.killOptions, this.deps.killOwner);
    const swept = this.cgroup === null ? null : await endRunCgroup(this.cgroup, stop.survivors);
    const survivors = swept?.survivors ?? stop.survivors;
    const leftovers = uniqueIdentities([...left, ...stop.killed, ...(swept?.killed ?? [])]);
    if (survivors.length > 0) {
      const error = swept?.error ?? stop.error ?? 'leftover descendants outlived every kill attempt';
      return this.finish({ classification: 'kill_failed', stop, survivors, leftovers, error });
    }
    if (otherUsers.length > 0) return this.finishOtherUsers(otherUsers, { stop, leftovers });
    return this.finishExit(exit, { stop, survivors, leftovers });
  }

  /**
   * Leftovers that dropped to another user (a daemon's setuid() after its double fork) are never
   * signalled: ending another user's process is not ours to decide, even as root. The run must not
   * look clean either, so they are its survivors, named, and the run is `kill_failed`.
   */
  private finishOtherUsers(
    otherUsers: readonly OtherUserCarrier[],
    facts: Pick<EndFacts, 'stop' | 'leftovers'>,
  ): Promise<void> {
    return this.finish({
      ...facts,
      classification: 'kill_failed',
      survivors: otherUsers.map(identityOf),
      error: otherUserLeftoversMessage(otherUsers),
    });
  }

  /** Live members of the run's cgroup other than its root (empty without a cgroup). */
  private unseenCgroupMembers(): ProcessIdentity[] {
    if (this.cgroup === null) return [];
    const rootPid = this.root?.pid;
    return readCgroupMembers(this.cgroup).filter((member) => member.pid !== rootPid);
  }

  /** Members still alive after the root exited, by one fresh observation (the root excluded). */
  private async findLeftovers(): Promise<ProcessIdentity[]> {
    if (this.owner === null) return [];
    try {
      await this.owner.observe();
      // The root is gone, so a child caught mid-execve (no environ yet) is in no owned tree:
      // only its cookie, once readable, says it is a leftover.
      await this.owner.settleCookies(LEFTOVER_COOKIE_SETTLE_MS);
    } catch {
      // Keep the last observation.
    }
    const rootPid = this.root?.pid;
    return this.owner.members().filter((member) => member.pid !== rootPid);
  }

  /** The root ended on its own: exit 0 is ok, anything else is classified from its output. */
  private async finishExit(exit: RootExit, facts: Omit<EndFacts, 'classification'>): Promise<void> {
    const tails = await this.output?.finish();
    const classification = classifyExit({
      exitCode: exit.exitCode,
      signal: exit.signal,
      stderr: tails?.stderrTail ?? '',
      stdout: tails?.stdoutTail ?? '',
    });
    // An adopted root may have ended without a status we could read: say so, never guess.
    const note = (exit as AdoptedRootExit).note;
    return this.finish({ ...(note === undefined ? {} : { error: note }), ...facts, classification });
  }

  private async finish(facts: EndFacts): Promise<void> {
    if (this.phase === 'ended') return;
    this.cancelTimeout();
    this.loop?.stop();
    // The owner's own reader held the tree's /proc files and pidfds for its refresh and kill.
    if (this.reader === undefined) this.owner?.reader.close?.();
    const tails = (await this.output?.finish()) ?? { stdoutTail: '', stderrTail: '' };
    const exit = this.root?.exit() ?? null;
    // rmdir only succeeds on an empty cgroup: kept descendants or survivors keep theirs (a leak for `orphans`).
    if (this.cgroup !== null) removeRunCgroup(this.cgroup.path);
    const outcome: RunOutcome = {
      runId: this.id,
      classification: facts.classification,
      exitCode: exit?.exitCode ?? null,
      signal: exit?.signal ?? null,
      pid: this.root?.pid ?? null,
      startTime: this.identity?.startTime ?? null,
      durationMs: (exit?.atMs ?? this.now()) - this.startedAtMs,
      killAttempts: facts.stop?.attempts ?? 0,
      survivors: facts.survivors ?? facts.stop?.survivors ?? [],
      leftovers: facts.leftovers ?? [],
      ...tails,
      ...(facts.error === undefined ? {} : { error: facts.error }),
      ...(facts.stop?.kill === undefined ? {} : { kill: facts.stop.kill }),
      ...(facts.kept === undefined ? {} : { kept: facts.kept }),
      ...(facts.limit === undefined ? {} : { limit: facts.limit }),
      ...(this.limits === null
        ? {}
        : { limitEnforcement: this.cgroup === null ? 'polling' : 'cgroup', limitMethods: this.limits.methods }),
      ...(this.cgroup === null ? {} : { cgroup: this.cgroup.path }),
      ...(facts.killedBy === undefined ? {} : { killedBy: facts.killedBy }),
    };
    this.setPhase('ended');
    this.resolveOutcome(outcome);
  }
}

/**
 * A new run's cgroup is created (and the empty ones dead runs left are removed first); an adopted
 * run's root is already in the one its launcher created.
 */
function openCgroup(
  parent: Extract<CgroupProbe, { available: true }>,
  runId: string,
  adopted: AdoptedStart | undefined,
): RunCgroup | null {
  if (adopted !== undefined) {
    const path = join(parent.path, CGROUP_HOME_NAME, runId);
    return existsSync(path) ? { path, controllers: [] } : null;
  }
  sweepEmptyRunCgroups(parent.path);
  return createRunCgroup(parent, runId);
}

function uniqueIdentities(identities: readonly ProcessIdentity[]): ProcessIdentity[] {
  return [...new Map(identities.map((i) => [`${i.pid}:${i.startTime}`, i])).values()];
}

/**
 * Starts one supervised run. Throws RunSpecError (nothing launched) for a refused spec; every
 * later failure, including a missing binary, is a classification in `run.outcome`.
 */
export function startRun(spec: RunSpec, deps: RunDeps = {}): Run {
  return new RunSupervisor(spec, deps);
}

/** A run whose root was launched elsewhere (by a guardian that died) and is supervised from now on. */
export interface AdoptedStart {
  readonly root: RootProcess;
  /** When the run started, on this process's clock: the timeout counts from here. */
  readonly startedAtMs: number;
}

/**
 * Takes over supervision of a run already going: same ownership, timeout (what is left of it),
 * leftovers and classification as `startRun`, without output tails (its pipes went with the
 * process that launched it).
 */
export function adoptRun(spec: RunSpec, adopted: AdoptedStart, deps: RunDeps = {}): Run {
  return new RunSupervisor(spec, deps, adopted);
}
