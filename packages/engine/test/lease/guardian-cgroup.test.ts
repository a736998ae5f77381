/**
 * When a lease's holder dies, the guardian's sweep ends what is left in its runs' cgroups with
 * `cgroup.kill`: here a real process in a real run cgroup that nothing else ties to the lease (no
 * cookie, not in the table the sweep reads) and that the run's cancel did not end.
 */
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Containment } from '../../src/lease/containment.js';
import { createGuardian, type GuardianDeps } from '../../src/lease/guardian.js';
import {
  cgroupShim,
  createRunCgroup,
  killRunCgroup,
  type RunCgroup,
  readCgroupPids,
  removeRunCgroup,
} from '../../src/run/cgroup.js';
import { probeCgroup } from '../../src/run/cgroup-probe.js';
import type { Run, RunOutcome, RunSpec } from '../../src/run/types.js';
import { ensureStateDir } from '../../src/state/state-dir.js';
import {
  fixturePath,
  isRunning,
  MAX_LIFETIME_ENV,
  makeTempDir,
  pollUntil,
  TEST_FIXTURE_LIFETIME_MS,
  useProcessTracker,
} from '../helpers/index.js';

const PROBE = probeCgroup();
if (!PROBE.available) console.warn(`guardian cgroup tests skipped: ${PROBE.reason}`);

/** A run whose cancel resolves at once and ends nothing: what is in its cgroup is left to the sweep. */
function inertRun(spec: RunSpec, cgroup: RunCgroup): Run {
  let resolve: (outcome: RunOutcome) => void = () => {};
  const outcome = new Promise<RunOutcome>((r) => {
    resolve = r;
  });
  const run = {
    id: spec.runId as string,
    leaseId: spec.leaseId as string,
    identity: null,
    phase: 'running' as Run['phase'],
    cgroup,
    outcome,
    cancel() {
      run.phase = 'ended';
      resolve({
        runId: run.id,
        classification: 'cancelled',
        exitCode: null,
        signal: null,
        pid: null,
        startTime: null,
        durationMs: 1,
        killAttempts: 0,
        survivors: [],
        leftovers: [],
        stdoutTail: '',
        stderrTail: '',
      });
    },
    subscribe: () => () => {},
  };
  return run;
}

describe.skipIf(!PROBE.available)('guardian sweep with run cgroups (real processes)', () => {
  const tracker = useProcessTracker();
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0)) await step();
  });

  it('a holder that died: the sweep kills the run cgroup, nothing of it survives, the dir is removed', async () => {
    if (!PROBE.available) return;
    const home = makeTempDir('tw-guardian-cgroup-');
    cleanup.push(async () => rmSync(home, { recursive: true, force: true }));
    const runId = `guardian-cgroup-${process.pid}-${Date.now()}`;
    const cgroup = createRunCgroup(PROBE, runId);
    cleanup.push(async () => {
      await killRunCgroup(cgroup.path);
      removeRunCgroup(cgroup.path);
    });
    // A process inside the cgroup, with no run or lease cookie, that the table below never shows.
    const [command, args] = cgroupShim(cgroup, process.execPath, [fixturePath('run-forever.mjs'), 'hidden']);
    const child = spawn(command, args, {
      detached: true,
      stdio: 'ignore',
      env: { PATH: process.env.PATH ?? '', [MAX_LIFETIME_ENV]: String(TEST_FIXTURE_LIFETIME_MS) },
    });
    const pid = tracker.trackChild(child, { detached: true });
    await pollUntil(() => readCgroupPids(cgroup.path)?.includes(pid), { description: 'the process in its cgroup' });

    const containment: Containment = { kind: 'linux-subreaper', active: false, adopt: () => {}, reap: () => [] };
    const deps: GuardianDeps = {
      paths: ensureStateDir(home),
      self: { pid: process.pid, startTime: '1' },
      containment,
      startRun: (spec) => inertRun(spec, cgroup),
      killTree: async () => {
        throw new Error('nothing is found to kill by the tree: the cgroup is the only tie');
      },
      readTable: () => ({ entries: new Map(), readAtMs: 0 }),
      readCookies: () => ({}),
      send: () => {},
    };
    const guardian = createGuardian(
      { leaseId: 'lease-cg', name: 'unit', stateDir: home, holder: { pid: 600, startTime: '60' } },
      deps,
    );
    guardian.handle({ t: 'start', runId, spec: { command: 'node' } });
    const summary = await guardian.end('holder_died');
    expect(summary.survivors).toEqual([]);
    await pollUntil(() => !isRunning(pid), { description: `pid ${pid} ended by cgroup.kill` });
    expect(existsSync(cgroup.path)).toBe(false);
  });
});
