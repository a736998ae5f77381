/**
 * Lease facts the holder or guardian record, as the UI must show them: a lease whose guardian died
 * while its holder lived is "guardian lost" (lease file → engine port → snapshot → a LeaseView the
 * protocol accepts), and descendants a run kept on purpose leave the run (never counted leaked).
 */
import { rmSync } from 'node:fs';
import { type ProcessEntry, type RunOutcome, readProcEntry } from '@treewarden/engine';
import { ensureStateDir } from '@treewarden/engine/state/index';
import { leaseViewSchema } from '@treewarden/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { writeLeaseFile } from '../../engine/src/lease/registry.js';
import { makeTempDir } from '../../engine/test/helpers/index.js';
import { createEnginePort } from '../src/engine/binding.js';
import { endRun, recordOwnRun } from '../src/run-record.js';
import { buildSnapshot } from '../src/snapshot/build-snapshot.js';
import { createMembership } from '../src/snapshot/membership.js';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function leaseFile(id: string, guardianLostAt?: string) {
  const self = { pid: process.pid, startTime: readProcEntry(process.pid)?.startTime ?? '' };
  return {
    v: 1 as const,
    id,
    name: id,
    holder: self,
    // A guardian identity that is not alive: pid 1 never has this start time.
    guardian: { pid: 1, startTime: '0' },
    createdAt: new Date().toISOString(),
    subreaper: true,
    runs: [],
    ...(guardianLostAt === undefined ? {} : { guardianLostAt }),
  };
}

describe('guardian lost, in the host', () => {
  it('marks the lease whose file records the loss, and only that one', () => {
    const home = makeTempDir('tw-host-guardian-');
    homes.push(home);
    const paths = ensureStateDir(home);
    writeLeaseFile(paths, leaseFile('lease-lost', new Date().toISOString()));
    writeLeaseFile(paths, leaseFile('lease-fine'));

    const leases = createEnginePort({ stateDir: home }).listForeignLeases(new Set());
    const byId = new Map(leases.map((lease) => [lease.id, lease]));
    expect(byId.get('lease-lost')).toMatchObject({ guardianLost: true, holderState: 'alive' });
    expect(byId.get('lease-fine')?.guardianLost).toBeUndefined();

    const snapshot = buildSnapshot({
      leases: leases.map((lease) => ({ ...lease, heldByThisApp: false, runs: [] })),
      orphans: [],
      cpuPercents: new Map(),
      pollIntervalMs: 250,
      now: Date.now(),
    });
    const views = new Map(snapshot.leases.map((view) => [view.id, leaseViewSchema.parse(view)]));
    expect(views.get('lease-lost')?.guardianLost).toBe(true);
    expect(views.get('lease-fine')?.guardianLost).toBeUndefined();
  });
});

function entry(pid: number, ppid: number): ProcessEntry {
  return {
    pid,
    startTime: String(1000 + pid),
    ppid,
    pgid: 10,
    sid: 10,
    state: 'S',
    uid: 0,
    command: 'node',
    args: ['node', `w${pid}`],
    cwd: '/tmp',
    cpuTimeMs: 0,
    rssBytes: 4096,
    startedAtMs: 1,
  };
}

function table(...entries: ProcessEntry[]): Map<number, ProcessEntry> {
  return new Map(entries.map((e) => [e.pid, e]));
}

describe('kept descendants, in the host', () => {
  it('leave the run: neither they nor what they start later are members or leaks', () => {
    const root = { pid: 20, startTime: '1020' };
    const membership = createMembership(() => root);
    membership.update(table(entry(20, 1), entry(21, 20), entry(22, 21), entry(23, 20)));
    expect(membership.pids().sort()).toEqual([20, 21, 22, 23]);

    membership.release([{ pid: 21, startTime: '1021' }]);
    // The root exited; 21 (kept) starts 24, 22 was its child all along; 23 is a plain leftover.
    membership.update(table(entry(21, 1), entry(22, 21), entry(23, 1), entry(24, 21)));
    expect(membership.pids()).toEqual([23]);
  });

  it('an own run whose outcome kept a descendant counts only its real leftovers as leaked', () => {
    const leakedAfterEnd = (kept: readonly { pid: number; startTime: string }[] | undefined) => {
      const handle = {
        runId: 'run-kept',
        leaseId: 'lease-1',
        spec: { command: 'node', timeoutSeconds: 60 },
        startedAtMs: Date.now(),
        root: { pid: 20, startTime: '1020' },
        cwd: '/tmp',
        cookie: 'run-kept',
        outcome: new Promise<never>(() => {}),
        cancel: () => new Promise<never>(() => {}),
        tails: () => ({ stdout: '', stderr: '' }),
      };
      const record = recordOwnRun(handle);
      record.membership.update(table(entry(20, 1), entry(21, 20)));
      endRun(record, outcomeWith(kept), Date.now());
      record.membership.update(table(entry(21, 1)));
      const lease = {
        id: 'lease-1',
        name: 'app',
        holder: null,
        holderCommand: '',
        holderState: 'alive' as const,
        heldByThisApp: true,
        createdAtMs: 0,
        runs: [record],
      };
      const snapshot = buildSnapshot({
        leases: [lease],
        orphans: [],
        cpuPercents: new Map(),
        pollIntervalMs: 250,
        now: 0,
      });
      return snapshot.leases[0]?.runs[0]?.leakedCount;
    };
    expect(leakedAfterEnd(undefined)).toBe(1);
    expect(leakedAfterEnd([{ pid: 21, startTime: '1021' }])).toBe(0);
  });
});

function outcomeWith(kept: readonly { pid: number; startTime: string }[] | undefined): RunOutcome {
  return {
    runId: 'run-kept',
    classification: 'ok',
    exitCode: 0,
    signal: null,
    pid: 20,
    startTime: '1020',
    durationMs: 10,
    killAttempts: 0,
    survivors: [],
    leftovers: [],
    stdoutTail: '',
    stderrTail: '',
    ...(kept === undefined ? {} : { kept }),
  };
}
