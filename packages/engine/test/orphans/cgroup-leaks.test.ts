/**
 * `orphans` with run cgroups, for real: a live process left in the recorded cgroup of a run that
 * is over is a leak whose evidence is the cgroup (no cookie, cwd "/"), `--clean` ends it and
 * removes the cgroup; an empty cgroup of a run that is over is removed by the scan; a ledger line
 * that points at a cgroup not of our shape is never believed.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanOrphans } from '../../src/orphans/clean-orphans.js';
import { findOrphans } from '../../src/orphans/find-orphans.js';
import {
  cgroupShim,
  createRunCgroup,
  killRunCgroup,
  type RunCgroup,
  readCgroupPids,
  removeRunCgroup,
} from '../../src/run/cgroup.js';
import { CGROUP_HOME_NAME, probeCgroup } from '../../src/run/cgroup-probe.js';
import { ensureStateDir, type StatePaths } from '../../src/state/state-dir.js';
import { readProcEntry } from '../../src/table/linux-proc.js';
import {
  fixturePath,
  isRunning,
  MAX_LIFETIME_ENV,
  makeTempDir,
  pollUntil,
  recordPastRun,
  TEST_FIXTURE_LIFETIME_MS,
  useProcessTracker,
} from '../helpers/index.js';

const PROBE = probeCgroup();
if (!PROBE.available) console.warn(`orphans cgroup tests skipped: ${PROBE.reason}`);

describe.skipIf(!PROBE.available)('orphans and run cgroups (real processes)', () => {
  const tracker = useProcessTracker();
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0)) await step();
  });

  function setup(): { paths: StatePaths; runId: string; cgroup: RunCgroup } {
    if (!PROBE.available) throw new Error('no cgroup parent');
    const home = makeTempDir('tw-orphans-cgroup-');
    const runId = `orphans-cgroup-${process.pid}-${Date.now()}`;
    const cgroup = createRunCgroup(PROBE, runId);
    cleanup.push(async () => {
      await killRunCgroup(cgroup.path);
      removeRunCgroup(cgroup.path);
      rmSync(home, { recursive: true, force: true });
    });
    return { paths: ensureStateDir(home), runId, cgroup };
  }

  /** A cookie-less process (cwd "/") placed in `cgroup`, tracked for cleanup. */
  async function placeProcess(cgroup: RunCgroup): Promise<number> {
    const [command, args] = cgroupShim(cgroup, process.execPath, [fixturePath('run-forever.mjs'), 'left']);
    const child = spawn(command, args, {
      detached: true,
      stdio: 'ignore',
      cwd: '/',
      env: { PATH: process.env.PATH ?? '', [MAX_LIFETIME_ENV]: String(TEST_FIXTURE_LIFETIME_MS) },
    });
    const pid = tracker.trackChild(child, { detached: true });
    await pollUntil(() => readCgroupPids(cgroup.path)?.includes(pid), { description: 'the process in its cgroup' });
    return pid;
  }

  it('what a run kept on purpose stays in its cgroup, never reported as a leak', async () => {
    const { paths, runId, cgroup } = setup();
    const pid = await placeProcess(cgroup);
    recordPastRun(paths, runId, {
      cgroup: cgroup.path,
      kept: [{ pid, startTime: readProcEntry(pid)?.startTime ?? '' }],
    });
    const scan = findOrphans({ paths });
    expect(scan.groups.filter((g) => g.runId === runId)).toEqual([]);
    expect(isRunning(pid)).toBe(true);
    expect(existsSync(cgroup.path)).toBe(true);
  });

  it('a process left in an ended run’s cgroup is a leak by that evidence alone; --clean ends it and removes the cgroup', async () => {
    const { paths, runId, cgroup } = setup();
    // No run cookie, cwd "/": nothing but the cgroup ties it to the run.
    const pid = await placeProcess(cgroup);
    recordPastRun(paths, runId, { cgroup: cgroup.path });

    const scan = findOrphans({ paths });
    const group = scan.groups.find((g) => g.runId === runId);
    expect(group?.cgroup).toBe(cgroup.path);
    expect(group?.members.map((m) => [m.entry.pid, m.reasons])).toEqual([
      [pid, [`in the run's cgroup ${cgroup.path}`]],
    ]);
    const cleaned = await cleanOrphans({ ...scan, groups: group === undefined ? [] : [group] }, { paths });
    expect(cleaned[0]?.cgroup?.survivors).toEqual([]);
    await pollUntil(() => !isRunning(pid), { description: `pid ${pid} ended` });
    expect(existsSync(cgroup.path)).toBe(false);
  });

  it('the scan removes an ended run’s empty cgroup, and ignores a recorded path not of our shape', () => {
    const { paths, runId, cgroup } = setup();
    recordPastRun(paths, runId, { cgroup: cgroup.path });
    // A forged record pointing at a cgroup outside our home: never read, never removed.
    const foreign = join(cgroup.path, '..', '..', `not-ours-${process.pid}`);
    mkdirSync(foreign);
    cleanup.push(async () => {
      removeRunCgroup(foreign);
    });
    recordPastRun(paths, `not-ours-${process.pid}`, { cgroup: foreign });
    const scan = findOrphans({ paths });
    expect(scan.groups.filter((g) => g.runId === runId)).toEqual([]);
    expect(existsSync(cgroup.path)).toBe(false);
    expect(existsSync(foreign)).toBe(true);
    expect(foreign.includes(`/${CGROUP_HOME_NAME}/`)).toBe(false);
  });
});
