/**
 * Starts `treewarden run` against the e2e serve's state dir, as a user in a terminal would, and
 * reads its lease file for the identities a test needs (holder, guardian, the run's root). Every
 * process is ended by the pid recorded here, and only while it still carries the run's cookie.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_MAIN, HOME_ENV, REPO_ROOT } from './env';

/** The lease file names the run's root once its guardian started it; node start-up included. */
export const CLI_RUN_START_TIMEOUT_MS = 30_000;
const POLL_MS = 100;

interface LeaseFileView {
  id: string;
  name: string;
  holder: { pid: number };
  guardian: { pid: number };
  runs: { runId: string; pid: number | null }[];
}

export interface CliRun {
  readonly child: ChildProcess;
  readonly leaseId: string;
  readonly runId: string;
  readonly holderPid: number;
  readonly guardianPid: number;
  readonly rootPid: number;
  /** SIGKILLs the holder, guardian and root that still exist (cookie-checked for the root). */
  cleanup(): void;
}

export function serveHome(): string {
  const home = process.env[HOME_ENV];
  if (!home) throw new Error(`${HOME_ENV} is not set: the global setup did not start serve`);
  return home;
}

function readLeases(home: string): LeaseFileView[] {
  const dir = join(home, 'leases');
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    try {
      return [JSON.parse(readFileSync(join(dir, name), 'utf8')) as LeaseFileView];
    } catch {
      return [];
    }
  });
}

function carriesCookie(pid: number, runId: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`TREEWARDEN_RUN_ID=${runId}`);
  } catch {
    return false;
  }
}

export function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * `treewarden run --lease LEASE --timeout S -- ARGV…`, waits until its lease file names the run's
 * root. `home`: the state dir of the serve it should show in (default the suite's shared serve).
 */
export async function startCliRun(
  lease: string,
  timeoutSeconds: number,
  argv: readonly string[],
  home: string = serveHome(),
): Promise<CliRun> {
  const child = spawn(
    process.execPath,
    [CLI_MAIN, 'run', '--lease', lease, '--timeout', String(timeoutSeconds), '--', ...argv],
    { cwd: REPO_ROOT, env: { ...process.env, TREEWARDEN_HOME: home }, stdio: 'ignore' },
  );
  const holderPid = child.pid;
  if (holderPid === undefined) throw new Error('could not start treewarden run');
  const deadline = Date.now() + CLI_RUN_START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const file = readLeases(home).find((candidate) => candidate.name === lease && candidate.holder.pid === holderPid);
    const run = file?.runs[0];
    if (file !== undefined && run !== undefined && run.pid !== null) {
      const rootPid = run.pid;
      return {
        child,
        leaseId: file.id,
        runId: run.runId,
        holderPid,
        guardianPid: file.guardian.pid,
        rootPid,
        cleanup() {
          if (carriesCookie(rootPid, run.runId)) killQuietly(rootPid);
          if (child.exitCode === null && child.signalCode === null) killQuietly(holderPid);
        },
      };
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  killQuietly(holderPid);
  throw new Error(`treewarden run --lease ${lease} named no run root within ${CLI_RUN_START_TIMEOUT_MS} ms`);
}
