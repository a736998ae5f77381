/**
 * Helpers for the lease tests: start a holder fixture (a separate node process using the engine's
 * dist build) under a private TREEWARDEN_HOME, read what it and its run's tree reported, and scan
 * for survivors the way the guardian design's leak check does: every live process whose cwd is
 * inside the run directory, plus every live process carrying the run cookie.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { GUARDIAN_ENTRY, isInsideDir, isZombie, LEASE_ID_ENV, RUN_ID_ENV, readProcEntry } from '@treewarden/engine';
import { expect } from 'vitest';
import {
  makeTempDir,
  type ProcessTracker,
  pollUntil,
  type ReportedProcess,
  readReportedPids,
  readReports,
  type SpawnedFixture,
  spawnFixture,
} from './index.js';

/** The guardian ends a run with grace + SIGKILL + verification; node start-up on a busy box adds more. */
export const NO_SURVIVOR_WAIT_MS = 40_000;
/** Holder, guardian and a 6-process tree start-up plus a graceful kill, on a loaded 2-core box. */
export const LEASE_TEST_TIMEOUT_MS = 90_000;
/** Reports of the lease-agent-tree fixture: agent-tree, agent, trapper, trapper-child, escaper, escaped. */
export const AGENT_TREE_REPORTS = 6;

export interface HeldLease {
  readonly fixture: SpawnedFixture;
  readonly home: string;
  readonly holderPid: number;
  readonly guardianPid: number;
  readonly leaseId: string;
  readonly runId: string;
  readonly runDir: string;
}

export function assertGuardianBuilt(): void {
  if (!existsSync(GUARDIAN_ENTRY)) throw new Error(`${GUARDIAN_ENTRY} is missing: run \`npx tsc -b\` first`);
}

/** Starts lease-holder.mjs running FIXTURE under a lease and waits for `reports` reports from the run's tree. */
export async function startHolder(
  tracker: ProcessTracker,
  script: string,
  args: readonly string[],
  reports: number,
  holderFlags: readonly string[] = [],
): Promise<HeldLease> {
  assertGuardianBuilt();
  const home = makeTempDir('tw-lease-home-');
  const fixture = spawnFixture(tracker, 'lease-holder.mjs', [...holderFlags, 'matrix', script, ...args], {
    detached: true,
    env: { TREEWARDEN_HOME: home },
  });
  const [holder] = await readReportedPids(tracker, fixture.reportFile, 1, { role: 'holder', timeoutMs: 40_000 });
  const report = holder as ReportedProcess;
  tracker.trackPid(report.guardian as number);
  tracker.trackEnvMarker(RUN_ID_ENV, report.runId as string);
  tracker.trackEnvMarker(LEASE_ID_ENV, report.lease as string);
  // +1: the holder's own report.
  if (reports > 0) await readReportedPids(tracker, fixture.reportFile, reports + 1, { timeoutMs: 40_000 });
  return {
    fixture,
    home,
    holderPid: fixture.pid,
    guardianPid: report.guardian as number,
    leaseId: report.lease as string,
    runId: report.runId as string,
    runDir: report.runDir as string,
  };
}

/** Live (non-zombie) processes with cwd inside `runDir` or carrying `TREEWARDEN_RUN_ID=runId`. */
export function scanRunSurvivors(runId: string, runDir: string): string[] {
  const cookie = `${RUN_ID_ENV}=${runId}`;
  const found: string[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const entry = readProcEntry(pid);
    if (entry === null || isZombie(entry)) continue;
    let why = '';
    try {
      if (isInsideDir(readlinkSync(`/proc/${pid}/cwd`), runDir)) why += 'cwd ';
    } catch {
      // Gone or unreadable.
    }
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(cookie)) why += 'cookie';
    } catch {
      // Gone or unreadable.
    }
    if (why !== '') found.push(`${pid} (${why.trim()}) ${entry.args.join(' ')}`);
  }
  return found;
}

export async function expectNoSurvivors(held: HeldLease): Promise<void> {
  let survivors: string[] = [];
  try {
    await pollUntil(
      () => {
        survivors = scanRunSurvivors(held.runId, held.runDir);
        return survivors.length === 0;
      },
      { deadlineMs: NO_SURVIVOR_WAIT_MS, description: `run ${held.runId} to leave no survivor` },
    );
  } catch {
    // Reported below with the list.
  }
  expect(survivors).toEqual([]);
}

export async function expectGuardianGone(held: HeldLease): Promise<void> {
  await pollUntil(
    () => {
      const entry = readProcEntry(held.guardianPid);
      return entry === null || isZombie(entry);
    },
    { deadlineMs: NO_SURVIVOR_WAIT_MS, description: `guardian ${held.guardianPid} to exit` },
  );
}

export function reportsOf(held: HeldLease, role: string): ReportedProcess[] {
  return readReports(held.fixture.reportFile).filter((report) => report.role === role);
}
