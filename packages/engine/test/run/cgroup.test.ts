/**
 * Runs in their own cgroup v2, for real: the root enters its cgroup before it can fork, the tree
 * (a setsid escapee and a double-forked daemon that cleared its run cookie) ends completely, the
 * limits read the cgroup's exact counters, and every run's cgroup directory is gone afterwards.
 * Skipped, saying why, only where no writable cgroup2 exists; on the project's machines it runs.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readLedger } from '../../src/ledger/read.js';
import { recordRun } from '../../src/ledger/record-run.js';
import { cgroupShim, createRunCgroup, killRunCgroup, readCgroupPids, removeRunCgroup } from '../../src/run/cgroup.js';
import { CGROUP_HOME_NAME, probeCgroup } from '../../src/run/cgroup-probe.js';
import { sweepEmptyRunCgroups } from '../../src/run/cgroup-sweep.js';
import type { Run } from '../../src/run/types.js';
import {
  fixturePath,
  isRunning,
  type ProcessTracker,
  pollUntil,
  readReportedPids,
  readReports,
  useProcessTracker,
} from '../helpers/index.js';
import { nodeFixture, nodeScript, startTracked, useFixtureEnv } from './run-helpers.js';

const PROBE = probeCgroup();
const HOME = PROBE.available ? join(PROBE.path, CGROUP_HOME_NAME) : '';
if (!PROBE.available) console.warn(`cgroup tests skipped: ${PROBE.reason}`);

/** Only bounds a test whose limit failed to trip. */
const BOUNDING_TIMEOUT_SECONDS = 60;
const CGROUP_TEST_TIMEOUT_MS = 90_000;

/** Starts both escapes and stays: a setsid child, and a daemon double-forked with a cleared environment. */
const ESCAPES_SCRIPT = `
  const { spawn } = require('node:child_process');
  for (const name of ['setsid-escape.mjs', 'stealth-daemon.mjs'])
    spawn(process.execPath, [require('node:path').join(process.argv[1], name)], { stdio: 'ignore' });
  setInterval(() => {}, 1000);
`;

/** Every run's cgroup: removed by the test's run, or else by afterEach (which then fails the test). */
function useRunCgroups(): (run: Run) => string {
  const paths: string[] = [];
  afterEach(async () => {
    const leftovers = paths.splice(0).filter((path) => existsSync(path));
    for (const path of leftovers) {
      await killRunCgroup(path);
      removeRunCgroup(path);
    }
    expect(leftovers, 'run cgroups left behind').toEqual([]);
  });
  return (run) => {
    const path = run.cgroup?.path;
    if (path === undefined) throw new Error('the run has no cgroup');
    paths.push(path);
    return path;
  };
}

function cgroupOf(pid: number): string | null {
  try {
    return /^0::(.*)$/m.exec(readFileSync(`/proc/${pid}/cgroup`, 'utf8'))?.[1] ?? null;
  } catch {
    return null;
  }
}

function expectAllReportedEnded(reportFile: string): void {
  const reports = readReports(reportFile);
  expect(reports.length).toBeGreaterThan(0);
  for (const reported of reports) expect(isRunning(reported.pid), `${reported.role} ${reported.pid}`).toBe(false);
}

/** Tracks the reported pids for cleanup, even those without a run cookie. */
async function waitForRoles(tracker: ProcessTracker, reportFile: string, roles: readonly string[]): Promise<void> {
  for (const role of roles) await readReportedPids(tracker, reportFile, 1, { role });
}

describe.skipIf(!PROBE.available)('runs in their own cgroup v2 (real processes)', () => {
  const tracker = useProcessTracker();
  const fixtureEnv = useFixtureEnv();
  const watchCgroup = useRunCgroups();

  it(
    'at timeout the whole tree ends, a cookie-less double-forked daemon included, and the cgroup is removed',
    async () => {
      const { reportFile, env } = fixtureEnv();
      let fireTimeout: () => void = () => {};
      const run = startTracked(
        tracker,
        { ...nodeScript(ESCAPES_SCRIPT, [fixturePath('')]), env, cgroup: true },
        {
          scheduleTimeout: (fire) => {
            fireTimeout = fire;
            return () => {};
          },
        },
      );
      const path = watchCgroup(run);
      expect(path).toBe(join(HOME, run.id));
      // The root entered before it could fork: every member is in the run's cgroup.
      await waitForRoles(tracker, reportFile, ['escaper', 'escaped', 'stealth-parent', 'stealth']);
      const stealth = readReports(reportFile).find((r) => r.role === 'stealth');
      expect(cgroupOf(stealth?.pid ?? 0)).toBe(`/${CGROUP_HOME_NAME}/${run.id}`);
      expect(cgroupOf(run.identity?.pid ?? 0)).toBe(`/${CGROUP_HOME_NAME}/${run.id}`);
      expect(readFileSync(`/proc/${stealth?.pid}/environ`, 'utf8')).not.toContain('TREEWARDEN_RUN_ID');
      fireTimeout();
      const outcome = await run.outcome;
      expect(outcome.classification).toBe('timeout');
      expect(outcome.survivors).toEqual([]);
      expect(outcome.cgroup).toBe(path);
      expectAllReportedEnded(reportFile);
      expect(existsSync(path)).toBe(false);
    },
    CGROUP_TEST_TIMEOUT_MS,
  );

  it(
    'a root that exits leaves no unseen member: the cgroup ends the cookie-less daemon as a leftover',
    async () => {
      const { reportFile, env } = fixtureEnv();
      const run = startTracked(tracker, {
        ...nodeFixture('stealth-daemon.mjs'),
        env,
        cgroup: true,
        timeoutSeconds: BOUNDING_TIMEOUT_SECONDS,
      });
      const path = watchCgroup(run);
      await waitForRoles(tracker, reportFile, ['stealth-parent', 'stealth']);
      const stealth = readReports(reportFile).find((r) => r.role === 'stealth');
      process.kill(run.identity?.pid ?? 0, 'SIGTERM'); // the root ends on its own terms
      const outcome = await run.outcome;
      expect(outcome.survivors).toEqual([]);
      expect(outcome.leftovers.map((l) => l.pid)).toContain(stealth?.pid);
      expectAllReportedEnded(reportFile);
      expect(existsSync(path)).toBe(false);
    },
    CGROUP_TEST_TIMEOUT_MS,
  );

  it(
    'max-procs counts cgroup.procs: only cookie-less double-forked daemons pass it, and the record says cgroup',
    async () => {
      const { dir, reportFile, env } = fixtureEnv();
      const ledgerFile = join(dir, 'ledger.jsonl');
      const spec = {
        // Daemons with no cookie, started one after another: only they can pass 4 (root + ≥ 3 daemons + ≤ 1 middle).
        ...nodeFixture('stealth-pile.mjs', ['6']),
        env,
        cgroup: true,
        timeoutSeconds: BOUNDING_TIMEOUT_SECONDS,
        limits: { maxProcs: 4 },
      };
      const run = startTracked(tracker, spec);
      const path = watchCgroup(run);
      const recorded = recordRun(run, spec, { ledgerFile });
      const outcome = await run.outcome;
      await recorded;
      // The third daemon started only after the second reported: at least two did.
      await readReportedPids(tracker, reportFile, 2, { role: 'stealth' });
      expect(outcome.classification).toBe('process_limit');
      expect(outcome.limit).toMatchObject({ name: 'max-procs', value: 4 });
      expect(outcome.limit?.observed).toBeGreaterThan(4);
      expect(outcome.limitEnforcement).toBe('cgroup');
      expect(outcome.limitMethods).toEqual({ 'max-procs': 'cgroup.procs' });
      expect(outcome.survivors).toEqual([]);
      expectAllReportedEnded(reportFile);
      expect(existsSync(path)).toBe(false);
      const records = readLedger(ledgerFile).records;
      expect(records.find((r) => r.kind === 'run_start')).toMatchObject({
        limitEnforcement: 'cgroup',
        limitMethods: { 'max-procs': 'cgroup.procs' },
        cgroup: path,
      });
      expect(records.find((r) => r.kind === 'run_end')).toMatchObject({
        classification: 'process_limit',
        limitEnforcement: 'cgroup',
        limitMethods: { 'max-procs': 'cgroup.procs' },
        cgroup: path,
      });
    },
    CGROUP_TEST_TIMEOUT_MS,
  );

  it(
    'max-cpu reads cpu.stat: bursts in children that exit add up to cpu_limit',
    async () => {
      const { reportFile, env } = fixtureEnv();
      // No live member ever holds more than 0.4 s; only the cgroup's usage_usec of the exited ones passes 1.5 s.
      const run = startTracked(tracker, {
        ...nodeFixture('cpu-spin.mjs', ['--bursts', '20', '400']),
        env,
        cgroup: true,
        timeoutSeconds: BOUNDING_TIMEOUT_SECONDS,
        limits: { maxCpuSeconds: 1.5 },
      });
      const path = watchCgroup(run);
      const outcome = await run.outcome;
      expect(outcome.classification).toBe('cpu_limit');
      expect(outcome.limit?.observed).toBeGreaterThan(1.5);
      expect(outcome.limitMethods).toEqual({ 'max-cpu': 'cpu.stat' });
      expect(outcome.survivors).toEqual([]);
      expectAllReportedEnded(reportFile);
      expect(existsSync(path)).toBe(false);
    },
    CGROUP_TEST_TIMEOUT_MS,
  );

  it(
    'a worker under its limits runs to completion untouched, and its cgroup is removed',
    async () => {
      const script = `
        const { spawnSync } = require('node:child_process');
        spawnSync(process.execPath, ['-e', '0']);
        console.log('done in', require('node:fs').readFileSync('/proc/self/cgroup', 'utf8').match(/^0::(.*)$/m)[1]);
      `;
      const run = startTracked(tracker, {
        ...nodeScript(script),
        cgroup: true,
        timeoutSeconds: BOUNDING_TIMEOUT_SECONDS,
        limits: { maxProcs: 20, maxCpuSeconds: 30, maxMemoryBytes: 1024 * 1024 * 1024 },
      });
      const path = watchCgroup(run);
      const outcome = await run.outcome;
      expect(outcome.classification).toBe('ok');
      expect(outcome.exitCode).toBe(0);
      expect(outcome.killAttempts).toBe(0);
      expect(outcome.stdoutTail.trim()).toBe(`done in /${CGROUP_HOME_NAME}/${run.id}`);
      expect(outcome.limitMethods).toMatchObject({ 'max-procs': 'cgroup.procs', 'max-cpu': 'cpu.stat' });
      expect(existsSync(path)).toBe(false);
    },
    CGROUP_TEST_TIMEOUT_MS,
  );

  it('a missing binary behind the cgroup shim is still missing_binary, and leaves no cgroup', async () => {
    const run = startTracked(tracker, { command: 'treewarden-no-such-binary', cgroup: true });
    const path = watchCgroup(run);
    const outcome = await run.outcome;
    expect(outcome.classification).toBe('missing_binary');
    expect(existsSync(path)).toBe(false);
  });

  it('the leftover sweep removes an empty cgroup of a run that is over, never a young or a populated one', async () => {
    if (!PROBE.available) return;
    const stamp = `${process.pid}-${Date.now()}`;
    const over = createRunCgroup(PROBE, `sweep-over-${stamp}`);
    const young = createRunCgroup(PROBE, `sweep-young-${stamp}`);
    const busy = createRunCgroup(PROBE, `sweep-busy-${stamp}`);
    const paths = [over.path, young.path, busy.path];
    try {
      const [command, args] = cgroupShim(busy, process.execPath, [fixturePath('run-forever.mjs'), 'busy']);
      const pid = tracker.trackChild(spawn(command, args, { detached: true, stdio: 'ignore' }), { detached: true });
      await pollUntil(() => readCgroupPids(busy.path)?.includes(pid), { description: 'the busy cgroup populated' });
      const removed = sweepEmptyRunCgroups(PROBE.path, new Set([`sweep-over-${stamp}`, `sweep-busy-${stamp}`]));
      expect(removed.filter((path) => paths.includes(path))).toEqual([over.path]);
      expect(existsSync(young.path)).toBe(true); // created just now: maybe a run being launched
      expect(existsSync(busy.path)).toBe(true); // populated: a leak for orphans, never lost
    } finally {
      for (const path of paths) {
        await killRunCgroup(path);
        removeRunCgroup(path);
      }
    }
  });

  it('refuses a run id that could climb out of the cgroup home, before launch', () => {
    expect(() => startTracked(tracker, { command: 'true', cgroup: true, runId: '../escape' })).toThrow(
      'cannot name a cgroup',
    );
    expect(readdirSync(HOME)).not.toContain('escape');
  });
});
