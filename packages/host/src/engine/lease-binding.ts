/**
 * Host leases on top of the engine's `openLease`: the app holds the lease, the engine's guardian
 * hosts the runs (and ends them if the app dies, even by SIGKILL). Scenarios started here run
 * their workers through the same lease.
 */
import {
  type KillOutcome,
  keepLastUtf8Bytes,
  type Lease,
  type LeaseRun,
  openLease,
  type ProcessIdentity,
  pollUntil,
  type RunOutcome,
  type RunSpec,
  type RunStartRecord,
  readProcEntry,
} from '@treewarden/engine';
import { startScenario } from '@treewarden/scenarios';
import type { HostLease, HostRun, HostScenario, ScenarioStartOptions } from './port.js';
import { enforcementOf } from './run-enforcement.js';

/** The guardian's run_start record of a run (its limit path and cgroup), once written. */
export type RunStartLookup = (runId: string) => RunStartRecord | undefined;

/** The guardian answers a start with the run's identity; past this the run is reported as it is. */
export const RUN_START_WAIT_MS = 15_000;
const RUN_START_POLL_MS = 20;
/** Output kept per stream for the UI (the engine keeps its own, larger tails for the outcome). */
export const UI_TAIL_BYTES = 8 * 1024;

async function waitUntilStarted(run: LeaseRun): Promise<void> {
  let ended = false;
  void run.outcome.then(() => {
    ended = true;
  });
  await pollUntil(() => run.runDir !== null || ended, { deadlineMs: RUN_START_WAIT_MS, intervalMs: RUN_START_POLL_MS });
}

function followOutput(run: LeaseRun): () => { stdout: string; stderr: string } {
  const tails = { stdout: '', stderr: '' };
  run.subscribe((event) => {
    if (event.type === 'output')
      tails[event.stream] = keepLastUtf8Bytes(tails[event.stream] + event.text, UI_TAIL_BYTES);
  });
  return () => ({ ...tails });
}

/** The host's view of a leased run; `root` and `cwd` stay live until the guardian reports them. */
function toHostRun(
  lease: Lease,
  run: LeaseRun,
  spec: RunSpec,
  startedAtMs: number,
  runStartOf: RunStartLookup,
): HostRun {
  const tails = followOutput(run);
  return {
    runId: run.id,
    leaseId: lease.id,
    spec,
    startedAtMs,
    get root() {
      return run.identity;
    },
    get cwd() {
      return spec.cwd ?? run.runDir ?? '';
    },
    cookie: run.id,
    outcome: run.outcome,
    cancel(): Promise<RunOutcome> {
      run.cancel('killed from the Treewarden app', 'ui');
      return run.outcome;
    },
    tails,
    enforcement: () => enforcementOf(runStartOf(run.id)),
  };
}

function startLeased(lease: Lease, spec: RunSpec, started: Set<LeaseRun>): LeaseRun {
  const run = lease.startRun(spec);
  started.add(run);
  return run;
}

function startHostScenario(
  lease: Lease,
  started: Set<LeaseRun>,
  name: string,
  options: ScenarioStartOptions,
  onRun: (run: HostRun) => void,
  runStartOf: RunStartLookup,
): HostScenario {
  const specs = new WeakMap<object, { spec: RunSpec; startedAtMs: number }>();
  const execution = startScenario(name, {
    naive: options.naive,
    pace: options.pace,
    startRun: (spec) => {
      const startedAtMs = Date.now();
      const run = startLeased(lease, spec, started);
      specs.set(run, { spec, startedAtMs });
      return run;
    },
    onRun: (run) => {
      const known = specs.get(run);
      // Naive-mode workers are not leased runs: they show up as leaks, which is the point.
      if (known !== undefined) onRun(toHostRun(lease, run as LeaseRun, known.spec, known.startedAtMs, runStartOf));
    },
  });
  return {
    runId: execution.runId,
    done: execution.result.then(() => undefined),
    interrupt: () => execution.interrupt('the Treewarden app is closing').then(() => undefined),
  };
}

/** Release ends the lease's runs in its guardian; their kill reports come back in the outcomes. */
async function releaseHostLease(lease: Lease, started: ReadonlySet<LeaseRun>): Promise<KillOutcome[]> {
  const live = [...started].filter((run) => run.phase !== 'ended');
  const result = await lease.release();
  if (!result.guardianExited) {
    throw new Error(`lease ${lease.id}: its guardian is still ending the runs; check again in a moment`);
  }
  const outcomes = await Promise.all(live.map((run) => run.outcome));
  return outcomes.flatMap((outcome) => (outcome.kill === undefined ? [] : [outcome.kill]));
}

function selfIdentity(): ProcessIdentity {
  return { pid: process.pid, startTime: readProcEntry(process.pid)?.startTime ?? '0' };
}

export async function openHostLease(
  name: string,
  stateDir: string,
  environment?: Readonly<Record<string, string>>,
  runStartOf: RunStartLookup = () => undefined,
): Promise<HostLease> {
  const lease = await openLease({
    name,
    holder: 'app',
    stateDir,
    guardianOutput: 'ignore',
    ...(environment === undefined ? {} : { environment }),
  });
  const started = new Set<LeaseRun>();
  return {
    id: lease.id,
    name: lease.name,
    holder: selfIdentity(),
    createdAtMs: Date.now(),
    get guardianLost() {
      return lease.guardianLost !== null;
    },
    async startRun(spec) {
      const startedAtMs = Date.now();
      const run = startLeased(lease, spec, started);
      const hostRun = toHostRun(lease, run, spec, startedAtMs, runStartOf);
      await waitUntilStarted(run);
      return hostRun;
    },
    startScenario: (scenarioName, options, onRun) =>
      startHostScenario(lease, started, scenarioName, options, onRun, runStartOf),
    release: () => releaseHostLease(lease, started),
  };
}
