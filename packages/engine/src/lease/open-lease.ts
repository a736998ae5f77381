/**
 * The holder's side of a lease: starts the guardian detached (its own session, outside the
 * holder's group), keeps the only write end of the lease pipe, and asks the guardian to host
 * each run. Nothing else ever gets the write end: libuv opens it close-on-exec, and the runs are
 * the guardian's children, not ours. Release writes the release token, closes the pipe and
 * waits (bounded) for the guardian to end the runs and exit.
 */

import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { resolve } from 'node:path';
import type { Run, RunSpec } from '../run/types.js';
import { validateRunSpec } from '../run/validate.js';
import { copyEnvironment, EnvironBlock } from '../runtime/environment.js';
import { ensureStateDir, resolveStateDir, statePaths } from '../state/state-dir.js';
import { readProcEntry } from '../table/linux-proc.js';
import type { ProcessIdentity } from '../table/types.js';
import { type GuardianLoss, releaseWithoutGuardian, type TakeoverContext, takeOverRuns } from './guardian-loss.js';
import { spawnGuardian, waitForReady } from './guardian-process.js';
import { SAFE_ID } from './lease-file.js';
import { createLeaseRun, type LeaseRun } from './lease-run.js';
import { type GuardianConfig, type HolderMessage, parseGuardianMessage, RELEASE_TOKEN } from './protocol.js';
import { becomeSubreaper, type ChildWaiter } from './subreaper-linux.js';

/** Release waits this long for the guardian to end every run (grace + kill retries) and exit. */
export const RELEASE_WAIT_MS = 30_000;
/** After the guardian's channel closed, how long its exit may take before it counts as lost anyway. */
export const GUARDIAN_EXIT_AFTER_DISCONNECT_MS = 5000;

export interface OpenLeaseOptions {
  readonly name: string;
  /** Free-form label of who holds the lease (e.g. "cli", "vitest"); recorded, not trusted. */
  readonly holder?: string;
  /** State dir; default `resolveStateDir()` ($TREEWARDEN_HOME, then XDG). */
  readonly stateDir?: string;
  /** `inherit`: runs with `output: 'inherit' | 'tee'` write to this process's stdout/stderr. */
  readonly guardianOutput?: 'inherit' | 'ignore';
  /**
   * Linux: make this process a child subreaper, so that if the guardian dies its runs' roots are
   * re-parented here and their exit statuses can still be read. Off by default: it also makes
   * this process the parent of every orphan its other descendants leave. The CLI turns it on.
   */
  readonly holderSubreaper?: boolean;
  /**
   * Base environment of every run (each run's `env` goes on top); default this process's, read
   * at each start. A holder whose own environment carries packaging artefacts (an app inside an
   * AppImage) passes the user's environment here; a holder that never changes its own passes
   * `readStartEnvironBlock()`, the cheapest to send. The guardian itself starts with only the few
   * variables it uses (guardian-process.ts), whatever the size of this one.
   */
  readonly environment?: Readonly<Record<string, string>> | EnvironBlock;
}

export interface ReleaseResult {
  /** False when the guardian outlived RELEASE_WAIT_MS (it keeps ending the runs on its own). */
  readonly guardianExited: boolean;
  readonly exitCode: number | null;
}

export interface Lease {
  readonly id: string;
  readonly name: string;
  readonly stateDir: string;
  readonly guardian: ProcessIdentity;
  readonly subreaper: boolean;
  readonly released: boolean;
  /** Set once the guardian died before the lease ended; this process then supervises the runs. */
  readonly guardianLost: GuardianLoss | null;
  /** Starts a run hosted by the guardian: cwd defaults to a private run dir, cookies added. */
  startRun(spec: RunSpec): LeaseRun;
  /**
   * Called once if the guardian dies before the lease ended (at once if it already did). Its runs
   * keep their deadlines, now enforced by this process; `release` still ends them. Returns the
   * unsubscribe function.
   */
  onGuardianLost(listener: (loss: GuardianLoss) => void): () => void;
  release(): Promise<ReleaseResult>;
}

export function generateId(prefix: 'lease' | 'run'): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(5).toString('hex')}`;
}

export async function openLease(options: OpenLeaseOptions): Promise<Lease> {
  const stateDir = options.stateDir ?? resolveStateDir();
  ensureStateDir(stateDir);
  const self = readProcEntry(process.pid);
  const config: GuardianConfig = {
    leaseId: generateId('lease'),
    name: options.name,
    stateDir,
    holder: { pid: process.pid, startTime: self?.startTime ?? '' },
    ...(options.holder !== undefined ? { holderLabel: options.holder } : {}),
    ...(self !== null ? { holderSession: { sid: self.sid, pgid: self.pgid } } : {}),
  };
  // Before the guardian exists, so that its orphaned runs can only ever be re-parented here.
  const waiter = options.holderSubreaper === true ? becomeSubreaper() : null;
  const source = options.environment instanceof EnvironBlock ? process.env : (options.environment ?? process.env);
  const child = spawnGuardian(config, options.guardianOutput ?? 'inherit', source);
  const ready = await waitForReady(child);
  return createLease(config, child, ready.guardian, ready.subreaper, waiter, () => options.environment ?? currentEnv());
}

function createLease(
  config: GuardianConfig,
  child: ChildProcess,
  guardian: ProcessIdentity,
  subreaper: boolean,
  waiter: ChildWaiter | null,
  baseEnvironment: () => Readonly<Record<string, string>> | EnvironBlock,
): Lease {
  const leasePipe = child.stdio[3] as Socket;
  const runs = new Map<string, LeaseRun>();
  const specs = new Map<string, RunSpec>();
  let released: Promise<ReleaseResult> | null = null;
  let exited: { code: number | null } | null = null;
  let lost: { loss: GuardianLoss; taken: Run[] } | null = null;
  const lossListeners = new Set<(loss: GuardianLoss) => void>();
  const takeover: TakeoverContext = {
    leaseId: config.leaseId,
    paths: statePaths(config.stateDir),
    actor: { role: 'holder', ...config.holder },
    guardian,
    specs,
    ...(waiter === null ? {} : { waitChild: (pid: number) => waiter.wait(pid) }),
    log: (line) => process.stderr.write(`${line}\n`),
  };

  // The lease must not keep the holder alive, except while a run is being awaited.
  const holdLoop = () => {
    if (runs.size > 0) child.channel?.ref();
    else child.channel?.unref();
  };
  child.unref();
  leasePipe.unref();
  holdLoop();
  child.on('message', (raw) => {
    const message = parseGuardianMessage(raw);
    if (message === null || message.t === 'ready') return;
    const run = runs.get(message.runId);
    run?.receive(message);
    if (run !== undefined && (message.t === 'ended' || message.t === 'failed')) {
      runs.delete(message.runId);
      holdLoop();
    }
  });
  // A dead guardian's end of the lease pipe is closed: a late release token must not throw.
  leasePipe.on('error', () => {});
  // The guardian's channel closes the instant it dies. Keep the loop alive until 'exit' says how
  // it ended (an unref'd child alone would let this process exit with its runs unsupervised).
  child.on('disconnect', () => {
    if (exited !== null) return;
    child.ref();
    // A guardian that closed its channel yet lives can no longer report: supervise without it.
    const timer = setTimeout(() => {
      child.unref();
      onLoss(null, null);
    }, GUARDIAN_EXIT_AFTER_DISCONNECT_MS);
    child.once('exit', () => clearTimeout(timer));
  });
  child.on('exit', (code, signal) => {
    exited = { code };
    // Exit 0 after a release is the guardian's normal end; anything else lost the lease's runs.
    if (released !== null && signal === null && code === 0) {
      for (const run of runs.values()) run.abandon(`lease guardian exited (code ${code}) before the run ended`);
      runs.clear();
      return;
    }
    onLoss(code, signal);
  });

  function onLoss(exitCode: number | null, signal: string | null): void {
    if (lost !== null) return;
    lost = takeOverRuns(takeover, runs, { exitCode, signal });
    for (const run of lost.taken) {
      void run.outcome.then(() => {
        runs.delete(run.id);
        holdLoop();
      });
    }
    for (const run of runs.values()) if (!lost.taken.some((taken) => taken.id === run.id)) runs.delete(run.id);
    holdLoop();
    for (const listener of lossListeners) notifyQuietly(listener, lost.loss);
  }

  return {
    id: config.leaseId,
    name: config.name,
    stateDir: config.stateDir,
    guardian,
    subreaper,
    get released() {
      return released !== null;
    },
    get guardianLost() {
      return lost?.loss ?? null;
    },
    onGuardianLost(listener) {
      if (lost !== null) notifyQuietly(listener, lost.loss);
      else lossListeners.add(listener);
      return () => lossListeners.delete(listener);
    },
    startRun(spec) {
      if (released !== null || exited !== null || lost !== null) {
        const state = released !== null ? 'released' : lost !== null ? 'without its guardian' : 'over';
        throw new Error(`lease ${config.leaseId} is ${state}; open a new lease to start runs`);
      }
      // Refuse a bad spec here, synchronously, exactly as a local startRun would.
      validateRunSpec(spec);
      const runId = spec.runId ?? generateId('run');
      if (!SAFE_ID.test(runId)) throw new Error(`run id "${runId}" may only contain letters, digits, ".", "_" and "-"`);
      specs.set(runId, { ...spec, runId, leaseId: config.leaseId });
      const run = createLeaseRun(runId, config.leaseId, (reason, by) =>
        sendQuietly(child, { t: 'cancel', runId, reason, ...(by === undefined ? {} : { by }) }),
      );
      runs.set(runId, run);
      holdLoop();
      const cwd = spec.cwd !== undefined ? resolve(spec.cwd) : undefined;
      const located = { ...spec, runId, ...(cwd !== undefined ? { cwd } : {}) };
      const base = baseEnvironment();
      // A block travels as it is (the guardian parses it once, under spec.env); variables merge here.
      if (base instanceof EnvironBlock) sendQuietly(child, { t: 'start', runId, spec: located, environ: base.text });
      else sendQuietly(child, { t: 'start', runId, spec: { ...located, env: { ...base, ...spec.env } } });
      return run;
    },
    release() {
      released ??= (async () => {
        const result = lost === null ? await releaseLease(child, leasePipe, () => exited) : null;
        // Lost before or during the release: this process ends what it took over.
        if (lost === null) return result as ReleaseResult;
        await releaseWithoutGuardian(takeover, lost.taken, RELEASE_WAIT_MS);
        return { guardianExited: true, exitCode: lost.loss.exitCode };
      })();
      return released;
    },
  };
}

/** A faulty listener must not stop the takeover. */
function notifyQuietly(listener: (loss: GuardianLoss) => void, loss: GuardianLoss): void {
  try {
    listener(loss);
  } catch {
    // The runs are supervised either way.
  }
}

/** A guardian that already exited reports through `exit`; a failed send adds nothing. */
function sendQuietly(child: ChildProcess, message: HolderMessage): void {
  if (child.connected) child.send(message, (error) => error && undefined);
}

/**
 * The holder's environment now: runs get what a locally spawned run would get. Quadratic in
 * Node for a huge environment (runtime/environment.ts); a holder that never changes its own
 * environment passes `readStartEnvironment()` as `environment` instead (the CLI does).
 */
function currentEnv(): Record<string, string> {
  return copyEnvironment(process.env);
}

function releaseLease(
  child: ChildProcess,
  leasePipe: Socket,
  exited: () => { code: number | null } | null,
): Promise<ReleaseResult> {
  return new Promise((resolveRelease) => {
    const already = exited();
    if (already !== null) {
      resolveRelease({ guardianExited: true, exitCode: already.code });
      return;
    }
    child.ref();
    const timer = setTimeout(() => {
      child.unref();
      resolveRelease({ guardianExited: false, exitCode: null });
    }, RELEASE_WAIT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolveRelease({ guardianExited: true, exitCode: code });
    });
    leasePipe.end(RELEASE_TOKEN);
  });
}
