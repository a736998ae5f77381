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
import type { RunSpec } from '../run/types.js';
import { validateRunSpec } from '../run/validate.js';
import { ensureStateDir, resolveStateDir } from '../state/state-dir.js';
import { readProcEntry } from '../table/linux-proc.js';
import type { ProcessIdentity } from '../table/types.js';
import { spawnGuardian, waitForReady } from './guardian-process.js';
import { SAFE_ID } from './lease-file.js';
import { createLeaseRun, type LeaseRun } from './lease-run.js';
import { type GuardianConfig, type HolderMessage, parseGuardianMessage, RELEASE_TOKEN } from './protocol.js';

/** Release waits this long for the guardian to end every run (grace + kill retries) and exit. */
export const RELEASE_WAIT_MS = 30_000;

export interface OpenLeaseOptions {
  readonly name: string;
  /** Free-form label of who holds the lease (e.g. "cli", "vitest"); recorded, not trusted. */
  readonly holder?: string;
  /** State dir; default `resolveStateDir()` ($TREEWARDEN_HOME, then XDG). */
  readonly stateDir?: string;
  /** `inherit`: runs with `output: 'inherit' | 'tee'` write to this process's stdout/stderr. */
  readonly guardianOutput?: 'inherit' | 'ignore';
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
  /** Starts a run hosted by the guardian: cwd defaults to a private run dir, cookies added. */
  startRun(spec: RunSpec): LeaseRun;
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
  const child = spawnGuardian(config, options.guardianOutput ?? 'inherit');
  const ready = await waitForReady(child);
  return createLease(config, child, ready.guardian, ready.subreaper);
}

function createLease(
  config: GuardianConfig,
  child: ChildProcess,
  guardian: ProcessIdentity,
  subreaper: boolean,
): Lease {
  const leasePipe = child.stdio[3] as Socket;
  const runs = new Map<string, LeaseRun>();
  let released: Promise<ReleaseResult> | null = null;
  let exited: { code: number | null } | null = null;

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
  child.on('exit', (code) => {
    exited = { code };
    for (const run of runs.values()) run.abandon(`lease guardian exited (code ${code}) before the run ended`);
    runs.clear();
  });

  return {
    id: config.leaseId,
    name: config.name,
    stateDir: config.stateDir,
    guardian,
    subreaper,
    get released() {
      return released !== null;
    },
    startRun(spec) {
      if (released !== null || exited !== null) {
        throw new Error(`lease ${config.leaseId} is ${released ? 'released' : 'over'}; open a new lease to start runs`);
      }
      // Refuse a bad spec here, synchronously, exactly as a local startRun would.
      validateRunSpec(spec);
      const runId = spec.runId ?? generateId('run');
      if (!SAFE_ID.test(runId)) throw new Error(`run id "${runId}" may only contain letters, digits, ".", "_" and "-"`);
      const run = createLeaseRun(runId, config.leaseId, (reason) => sendQuietly(child, { t: 'cancel', runId, reason }));
      runs.set(runId, run);
      holdLoop();
      const env = { ...currentEnv(), ...spec.env };
      const cwd = spec.cwd !== undefined ? resolve(spec.cwd) : undefined;
      sendQuietly(child, { t: 'start', runId, spec: { ...spec, runId, env, ...(cwd !== undefined ? { cwd } : {}) } });
      return run;
    },
    release() {
      released ??= releaseLease(child, leasePipe, () => exited);
      return released;
    },
  };
}

/** A guardian that already exited reports through `exit`; a failed send adds nothing. */
function sendQuietly(child: ChildProcess, message: HolderMessage): void {
  if (child.connected) child.send(message, (error) => error && undefined);
}

/** The holder's environment now: runs get what a locally spawned run would get. */
function currentEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return env;
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
