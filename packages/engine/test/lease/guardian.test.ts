/**
 * The guardian's logic with injected parts (no processes): what it records, what it tells the
 * holder, how a refused run is reported, and that the lease end cancels runs and ends what the
 * sweep finds through the tree kill.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { KillOutcome } from '../../src/kill/types.js';
import type { Containment } from '../../src/lease/containment.js';
import { createGuardian, type GuardianDeps } from '../../src/lease/guardian.js';
import type { GuardianMessage } from '../../src/lease/protocol.js';
import { listLeases } from '../../src/lease/registry.js';
import { readLedger } from '../../src/ledger/read.js';
import { startRun } from '../../src/run/start-run.js';
import type { Run, RunEvent, RunOutcome, RunSpec } from '../../src/run/types.js';
import { ensureStateDir } from '../../src/state/state-dir.js';
import type { ProcessEntry, ProcessIdentity, ProcessTable } from '../../src/table/types.js';
import { makeTempDir } from '../helpers/index.js';

const GUARDIAN = { pid: 700, startTime: '70' };
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fakeRun(spec: RunSpec, identity: ProcessIdentity): Run & { specSeen: RunSpec; cancelled: string[] } {
  let resolve: (outcome: RunOutcome) => void = () => {};
  const outcome = new Promise<RunOutcome>((r) => {
    resolve = r;
  });
  const cancelled: string[] = [];
  const run = {
    id: spec.runId as string,
    leaseId: spec.leaseId as string,
    identity,
    phase: 'running' as Run['phase'],
    outcome,
    specSeen: spec,
    cancelled,
    cancel(reason?: string) {
      cancelled.push(reason ?? '');
      run.phase = 'ended';
      resolve({
        runId: run.id,
        classification: 'cancelled',
        exitCode: null,
        signal: 'SIGTERM',
        pid: identity.pid,
        startTime: identity.startTime,
        durationMs: 5,
        killAttempts: 1,
        survivors: [],
        leftovers: [],
        stdoutTail: '',
        stderrTail: '',
      });
    },
    subscribe: (_listener: (event: RunEvent) => void) => () => {},
  };
  return run;
}

function entry(pid: number, ppid: number, cwd: string): ProcessEntry {
  return {
    pid,
    ppid,
    startTime: `${pid}0`,
    pgid: pid,
    sid: pid,
    state: 'S',
    uid: 0,
    command: 'x',
    args: [],
    cwd,
    cpuTimeMs: 0,
    rssBytes: 0,
    startedAtMs: 0,
  };
}

function setup(startRun?: (spec: RunSpec) => Run) {
  const home = makeTempDir('tw-guardian-');
  dirs.push(home);
  const paths = ensureStateDir(home);
  const sent: GuardianMessage[] = [];
  const runs: ReturnType<typeof fakeRun>[] = [];
  const killed: ProcessIdentity[] = [];
  let table: ProcessTable = { entries: new Map(), readAtMs: 0 };
  const containment: Containment = { kind: 'linux-subreaper', active: true, adopt: () => {}, reap: () => [] };
  const deps: GuardianDeps = {
    paths,
    self: GUARDIAN,
    containment,
    startRun:
      startRun ??
      ((spec) => {
        const run = fakeRun(spec, { pid: 800 + runs.length, startTime: '80' });
        runs.push(run);
        return run;
      }),
    killTree: async (target): Promise<KillOutcome> => {
      killed.push(target);
      table = { entries: new Map(), readAtMs: 0 };
      return {
        result: 'killed',
        target,
        attempts: 1,
        killed: [target],
        survivors: [],
        timeline: [{ atMs: 1, action: 'SIGKILL', pids: [target.pid] }],
        startedAtMs: 0,
        durationMs: 1,
      };
    },
    readTable: () => table,
    readCookies: () => ({}),
    send: (message) => sent.push(message),
  };
  const guardian = createGuardian(
    { leaseId: 'lease-1', name: 'unit', stateDir: home, holder: { pid: 600, startTime: '60' } },
    deps,
  );
  return { guardian, paths, sent, runs, killed, setTable: (t: ProcessTable) => (table = t) };
}

describe('guardian logic', () => {
  it('records the lease, hosts a run in its private dir with the lease id, and tells the holder', () => {
    const { guardian, paths, sent, runs } = setup();
    guardian.handle({ t: 'start', runId: 'run-1', spec: { command: 'node' } });
    expect(runs[0]?.specSeen).toMatchObject({ runId: 'run-1', leaseId: 'lease-1', cwd: `${paths.runsDir}/run-1` });
    expect(sent).toEqual([
      { t: 'started', runId: 'run-1', runDir: `${paths.runsDir}/run-1`, phase: 'running', pid: 800, startTime: '80' },
    ]);
    const kinds = readLedger(paths.ledgerFile).records.map((record) => record.kind);
    expect(kinds).toEqual(['lease_start', 'run_start']);
    const [status] = listLeases(paths, () => true);
    expect(status?.lease.runs.map((run) => run.runId)).toEqual(['run-1']);
  });

  it('reports a refused run as failed and refuses a duplicate run id', () => {
    const { guardian, sent } = setup((spec) => {
      if (spec.command === 'bad') throw new Error('timeout 0 is below MIN_TIMEOUT_SECONDS (1)');
      return fakeRun(spec, { pid: 801, startTime: '1' });
    });
    guardian.handle({ t: 'start', runId: 'r-bad', spec: { command: 'bad' } });
    guardian.handle({ t: 'start', runId: 'r-ok', spec: { command: 'ok' } });
    guardian.handle({ t: 'start', runId: 'r-ok', spec: { command: 'ok' } });
    expect(sent.filter((m) => m.t === 'failed')).toEqual([
      { t: 'failed', runId: 'r-bad', error: 'timeout 0 is below MIN_TIMEOUT_SECONDS (1)' },
      { t: 'failed', runId: 'r-ok', error: 'run id r-ok is already in use' },
    ]);
  });

  it('validates a start message again: bad limits from a holder that skipped its check are refused', () => {
    const { guardian, sent } = setup((spec) => startRun(spec));
    guardian.handle({ t: 'start', runId: 'r-limits', spec: { command: 'true', limits: { maxProcs: 0 } } });
    guardian.handle({ t: 'start', runId: 'r-typo', spec: { command: 'true', limits: { maxMem: 1 } as never } });
    expect(sent).toEqual([
      { t: 'failed', runId: 'r-limits', error: 'max-procs 0 is below MIN_PROCS_LIMIT (1)' },
      {
        t: 'failed',
        runId: 'r-typo',
        error: 'unknown limit maxMem: the limits are maxMemoryBytes, maxProcs, maxCpuSeconds, idleTimeoutSeconds',
      },
    ]);
  });

  it('at lease end cancels running runs, kills what the sweep finds, and records it all', async () => {
    const { guardian, paths, runs, killed, setTable } = setup();
    guardian.handle({ t: 'start', runId: 'run-1', spec: { command: 'node' } });
    // A straggler in the run dir and an adopted orphan with no cookie or cwd.
    setTable({
      entries: new Map([
        [901, entry(901, 1, `${paths.runsDir}/run-1`)],
        [902, entry(902, GUARDIAN.pid, '/')],
      ]),
      readAtMs: 0,
    });
    const summary = await guardian.end('holder_died');
    expect(runs[0]?.cancelled).toEqual(['lease holder died']);
    expect(killed.map((k) => k.pid).sort()).toEqual([901, 902]);
    expect(summary).toMatchObject({ runsEnded: ['run-1'], survivors: [] });
    const records = readLedger(paths.ledgerFile).records;
    expect(records.map((r) => r.kind)).toEqual(['lease_start', 'run_start', 'run_end', 'kill', 'kill', 'lease_end']);
    expect(records.at(-1)).toMatchObject({ kind: 'lease_end', reason: 'holder_died', runsEnded: ['run-1'] });
    expect(listLeases(paths, () => false)[0]?.state).toBe('ended');
    guardian.handle({ t: 'start', runId: 'late', spec: { command: 'node' } });
    expect(runs).toHaveLength(1);
  });
});
