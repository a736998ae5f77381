/**
 * A run's own cgroup v2: `<parent>/treewarden/<runId>`, created 0700 before launch, entered by the
 * root before it can fork (the shim below), read for exact usage, ended with `cgroup.kill`, and
 * removed once empty. Membership is exact: only the cgroup's owner (and root) can move a process
 * in, and a process cannot leave by setsid, double fork or clearing its environment, so every
 * member is the run's. That is why `cgroup.kill` needs no identity check per member.
 */
import { lstatSync, mkdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pollUntil } from '../runtime/wait.js';
import { CGROUP_DIR_MODE, CGROUP_HOME_NAME, type CgroupProbe } from './cgroup-probe.js';
import { RunSpecError } from './spec-error.js';

/** How long a `cgroup.kill` may take to empty the cgroup (SIGKILL; only D-state sleepers delay it). */
export const CGROUP_EMPTY_WAIT_MS = 5000;
export const CGROUP_EMPTY_POLL_MS = 20;
/** Controllers we enable for the runs where the parent offers them (exact memory and process counts). */
const WANTED_CONTROLLERS = ['memory', 'pids'] as const;

/** A run id names a directory: nothing that could climb out of our home or hide as a dotfile. */
const RUN_CGROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export interface RunCgroup {
  /** The run's cgroup directory. */
  readonly path: string;
  /** Controllers enabled in it (its cgroup.controllers), e.g. `memory pids`; may be empty. */
  readonly controllers: readonly string[];
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Best effort: where our home may delegate memory and pids to the runs, let it. */
function enableControllers(home: string): void {
  const offered = new Set((readText(join(home, 'cgroup.controllers')) ?? '').trim().split(/\s+/));
  for (const name of WANTED_CONTROLLERS) {
    if (!offered.has(name)) continue;
    try {
      writeFileSync(join(home, 'cgroup.subtree_control'), `+${name}`);
    } catch {
      // Not delegated to us: that limit is enforced by polling instead.
    }
  }
}

/** Creates the run's cgroup; throws RunSpecError (nothing launched yet) when it cannot. */
export function createRunCgroup(parent: Extract<CgroupProbe, { available: true }>, runId: string): RunCgroup {
  if (!RUN_CGROUP_NAME.test(runId)) {
    throw new RunSpecError(`cgroup: run id ${JSON.stringify(runId)} cannot name a cgroup (letters, digits, . _ -)`);
  }
  const home = join(parent.path, CGROUP_HOME_NAME);
  const path = join(home, runId);
  try {
    mkdirSync(home, { mode: CGROUP_DIR_MODE, recursive: true });
    // Someone else's `treewarden` (another user of a shared delegation) is never ours to use.
    if (!isOwnDirectory(home)) throw new Error(`${home} is not a directory owned by uid ${process.getuid?.()}`);
    enableControllers(home);
    mkdirSync(path, { mode: CGROUP_DIR_MODE });
  } catch (error) {
    throw new RunSpecError(`cgroup: cannot create ${path}: ${errorText(error)}`);
  }
  // Trust what the fresh directory shows, not what the parent promised.
  const missing = ['cgroup.procs', 'cgroup.kill', 'cgroup.events', 'cpu.stat'].filter(
    (file) => readText(join(path, file)) === null && !isWriteOnly(join(path, file)),
  );
  if (missing.length > 0) {
    removeRunCgroup(path);
    throw new RunSpecError(`cgroup: ${path} lacks ${missing.join(', ')}`);
  }
  const controllers = (readText(join(path, 'cgroup.controllers')) ?? '').trim().split(/\s+/).filter(Boolean);
  return { path, controllers };
}

function isOwnDirectory(path: string): boolean {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  return stat?.isDirectory() === true && stat.uid === process.getuid?.();
}

/** `cgroup.kill` is write-only: it exists when stat finds it. */
function isWriteOnly(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The command that enters the cgroup and then becomes the worker: the shell writes its own pid
 * (`0` means "the writer") to cgroup.procs and execs, so the worker keeps the shell's pid and
 * start time (its identity) and is inside before it can fork. A failed write exits 125 with why.
 */
export function cgroupShim(cgroup: RunCgroup, command: string, args: readonly string[]): [string, string[]] {
  const script =
    'echo 0 > "$0/cgroup.procs" || { echo "treewarden: cannot enter cgroup $0" >&2; exit 125; }; exec "$@"';
  return ['/bin/sh', ['-c', script, cgroup.path, command, ...args]];
}

/** The pids in the cgroup now; null when it is gone. Zombies are not listed (they left at exit). */
export function readCgroupPids(path: string): number[] | null {
  const text = readText(join(path, 'cgroup.procs'));
  if (text === null) return null;
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map(Number);
}

/** CPU time of every process that was ever in the cgroup, exited ones included (µs); null when gone. */
export function readCgroupCpuUsec(path: string): number | null {
  const match = /^usage_usec (\d+)$/m.exec(readText(join(path, 'cpu.stat')) ?? '');
  return match?.[1] === undefined ? null : Number(match[1]);
}

/**
 * The cgroup's resident memory (bytes) where the memory controller is enabled, else null:
 * `anon + file_mapped` from memory.stat. Not memory.current, which also counts page cache the
 * tree merely read: --max-memory is documented as resident memory (what polling sums as RSS), and
 * a cache-inflated number would trip before the limit was really passed.
 */
export function readCgroupMemoryBytes(path: string): number | null {
  const text = readText(join(path, 'memory.stat'));
  const anon = text === null ? undefined : /^anon (\d+)$/m.exec(text)?.[1];
  const mapped = text === null ? undefined : /^file_mapped (\d+)$/m.exec(text)?.[1];
  return anon === undefined || mapped === undefined ? null : Number(anon) + Number(mapped);
}

/** From cgroup.events: true while any process is in it; null when it is gone. */
export function isCgroupPopulated(path: string): boolean | null {
  const match = /^populated ([01])$/m.exec(readText(join(path, 'cgroup.events')) ?? '');
  return match?.[1] === undefined ? null : match[1] === '1';
}

export interface CgroupKillResult {
  /** Pids that were in the cgroup when it was killed. */
  readonly killed: readonly number[];
  /** Pids still in it after CGROUP_EMPTY_WAIT_MS (empty on success). */
  readonly remaining: readonly number[];
}

/**
 * SIGKILLs every member with one write to `cgroup.kill` (the kernel also stops new forks from
 * escaping during it), then waits with a bound for `populated 0`. A gone cgroup is an empty one.
 */
export async function killRunCgroup(path: string, waitMs: number = CGROUP_EMPTY_WAIT_MS): Promise<CgroupKillResult> {
  const before = readCgroupPids(path) ?? [];
  if (before.length > 0) {
    try {
      writeFileSync(join(path, 'cgroup.kill'), '1');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  const empty = await pollUntil(() => isCgroupPopulated(path) !== true, {
    deadlineMs: waitMs,
    intervalMs: CGROUP_EMPTY_POLL_MS,
  });
  return { killed: before, remaining: empty === null ? (readCgroupPids(path) ?? []) : [] };
}

/** rmdir: succeeds only on an empty cgroup (EBUSY otherwise), so it never loses a live member. */
export function removeRunCgroup(path: string): boolean {
  try {
    rmdirSync(path);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
