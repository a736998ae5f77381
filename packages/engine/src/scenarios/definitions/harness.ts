/**
 * A test harness that dies by SIGKILL (its whole process group), leaving its runs to the lease's
 * guardian. The harness is a fixture (lease-harness.mjs) using the engine's lease API from dist.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readLeaseFile } from '../../lease/registry.js';
import { RUN_ID_ENV } from '../../run/types.js';
import { statePaths } from '../../state/state-dir.js';
import { readProcEntry } from '../../table/linux-proc.js';
import { isZombie, type ProcessIdentity } from '../../table/types.js';
import { heartbeatQuietCheck, reportedCheck } from '../checks.js';
import type { DriverTools, ScenarioContext, ScenarioDefinition, ScenarioOutcomeFacts } from '../types.js';

/** The lease API the harness imports; present once the engine is built (npx tsc -b). */
const LEASE_DIST = fileURLToPath(new URL('../../../dist/lease/index.js', import.meta.url));
/** Harness + guardian start-up (two node processes) and the workers' reports, on a busy machine. */
const READY_WAIT_MS = 20_000;
/** The guardian notices lease EOF, cancels the run (grace + kill) and sweeps. */
const GUARDIAN_END_WAIT_MS = 20_000;
const POLL_MS = 100;
const HEARTBEAT_FILE = 'heartbeat.log';
const WORKERS = 2;

function isAlive(identity: ProcessIdentity): boolean {
  const entry = readProcEntry(identity.pid);
  return entry !== null && entry.startTime === identity.startTime && !isZombie(entry);
}

async function pollUntil(predicate: () => boolean, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() >= deadline || signal.aborted) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}

function spawnHarness(ctx: ScenarioContext): number {
  const env: NodeJS.ProcessEnv = { ...process.env, ...ctx.env };
  // The harness is the lease holder, not a member of the run: it must not carry the run cookie.
  delete env[RUN_ID_ENV];
  const mode = ctx.mode === 'naive' ? 'naive' : 'lease';
  const workerArgs = ['--detached', String(WORKERS), 'heartbeat.mjs', join(ctx.dir, HEARTBEAT_FILE)];
  const child = spawn(
    ctx.node,
    [ctx.fixture('lease-harness.mjs'), mode, ctx.runId, ctx.node, ctx.fixture('spawn-children.mjs'), ...workerArgs],
    { cwd: ctx.dir, env, detached: true, stdio: 'ignore' },
  );
  child.unref();
  if (child.pid === undefined) throw new Error('could not start the harness (lease-harness.mjs)');
  return child.pid;
}

function leaseClassification(stateDir: string, leaseId: string, runId: string): string | null {
  const lease = readLeaseFile(join(statePaths(stateDir).leasesDir, `${leaseId}.json`));
  return lease?.runs.find((run) => run.runId === runId)?.classification ?? null;
}

async function driveHarness(ctx: ScenarioContext, tools: DriverTools): Promise<ScenarioOutcomeFacts> {
  const startedAt = Date.now();
  const harnessPid = spawnHarness(ctx);
  tools.step(
    `harness started: pid ${harnessPid} (${ctx.mode === 'naive' ? 'spawns its worker itself' : 'holds a Treewarden lease'})`,
  );
  const [harness] = (await tools.waitForReports('harness', 1, READY_WAIT_MS)) ?? [];
  const beats = await tools.waitForReports('heartbeat', WORKERS, READY_WAIT_MS);
  if (harness === undefined || beats === null) throw new Error('the harness or its workers did not come up in time');
  const guardian = harness.guardian as ProcessIdentity | undefined;
  if (guardian !== undefined)
    tools.step(`lease ${String(harness.leaseId)}: guardian pid ${guardian.pid}, outside the harness's group`);
  tools.step(`${WORKERS} heartbeat workers up (own sessions): pids ${beats.map((beat) => beat.pid).join(' ')}`);
  tools.step(`SIGKILL the harness's whole process group (-${harnessPid})`);
  process.kill(-harnessPid, 'SIGKILL');
  let classification: ScenarioOutcomeFacts['classification'] = null;
  if (guardian !== undefined && typeof harness.stateDir === 'string' && typeof harness.leaseId === 'string') {
    const { stateDir, leaseId } = harness;
    const done = await pollUntil(
      () => !isAlive(guardian) && leaseClassification(stateDir, leaseId, ctx.runId) !== null,
      GUARDIAN_END_WAIT_MS,
      tools.signal,
    );
    classification = leaseClassification(stateDir, leaseId, ctx.runId) as ScenarioOutcomeFacts['classification'];
    tools.step(done ? `guardian ended the run (${classification}) and exited` : 'the guardian did not finish in time');
  } else {
    tools.step('nobody is left to end the workers: the naive harness was their only owner');
  }
  return {
    classification,
    exitCode: null,
    signal: 'SIGKILL',
    stdoutTail: '',
    stderrTail: '',
    durationMs: Date.now() - startedAt,
    killTimeline: [],
    leftovers: 0,
  };
}

export const harnessSigkill: ScenarioDefinition = {
  name: 'harness-sigkill',
  title: 'A harness dies by SIGKILL, leaving its runs to the guardian',
  explanation:
    'A test harness starts workers that escape into their own sessions, then its whole process group is SIGKILLed: no exit handler, no finally block, no cleanup code of its own runs.',
  naiveFailure:
    'The harness was the only thing that knew about its workers; with it gone they are reparented to pid 1 and keep beating forever.',
  treewardenFix:
    "The harness holds a lease; its guardian, outside the harness's group, sees the lease pipe close (EOF arrives however the holder dies), cancels the run with the revalidated tree kill, sweeps by cookie, records the outcome and exits.",
  expected: { classification: 'cancelled', nothingSurvives: true },
  bounds: { maxProcesses: 8, maxMs: 60_000 },
  naive: 'in-worker',
  unavailableReason: () =>
    existsSync(LEASE_DIST) ? null : `the engine is not built (${LEASE_DIST} is missing): run npx tsc -b first`,
  drive: driveHarness,
  check: async (evidence) => [
    reportedCheck(evidence, 'heartbeat', WORKERS),
    await heartbeatQuietCheck(join(evidence.ctx.dir, HEARTBEAT_FILE)),
  ],
};
