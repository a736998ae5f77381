import { mkdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  classifyLease,
  createLeaseFileCache,
  isIdentityAlive,
  type LeaseFile,
  leaseFilePath,
  listLeases,
  writeLeaseFile,
} from '../../src/lease/registry.js';
import { ensureStateDir, type StatePaths } from '../../src/state/state-dir.js';
import { readProcEntry } from '../../src/table/linux-proc.js';
import { makeTempDir } from '../helpers/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function paths(): StatePaths {
  const dir = makeTempDir('tw-registry-');
  dirs.push(dir);
  return ensureStateDir(dir);
}

const holder = { pid: 1001, startTime: '11' };
const guardian = { pid: 1002, startTime: '12' };
function lease(id: string, patch: Partial<LeaseFile> = {}): LeaseFile {
  return {
    v: 1,
    id,
    name: 'n',
    holder,
    guardian,
    createdAt: '2026-01-01T00:00:00.000Z',
    subreaper: true,
    runs: [],
    ...patch,
  };
}
const aliveSet =
  (...alive: { pid: number }[]) =>
  (identity: { pid: number }) =>
    alive.some((a) => a.pid === identity.pid);

describe('lease registry', () => {
  it('classifies a lease by its record and the identity of holder and guardian', () => {
    expect(classifyLease(lease('a'), aliveSet(holder, guardian))).toMatchObject({ state: 'held', holderAlive: true });
    expect(classifyLease(lease('a'), aliveSet(guardian))).toMatchObject({ state: 'holder_dead', guardianAlive: true });
    const released = lease('a', { releasedAt: 'x', endedAt: 'x', endReason: 'released' });
    expect(classifyLease(released, aliveSet(holder)).state).toBe('released');
    const ended = lease('a', { endedAt: 'x', endReason: 'holder_died' });
    expect(classifyLease(ended, aliveSet()).state).toBe('ended');
  });

  it('checks liveness by identity: a recycled pid is not the holder', () => {
    const self = readProcEntry(process.pid);
    expect(isIdentityAlive({ pid: process.pid, startTime: self?.startTime ?? '' })).toBe(true);
    expect(isIdentityAlive({ pid: process.pid, startTime: `${self?.startTime}0` })).toBe(false);
  });

  it('lists leases newest first, skipping unreadable files', () => {
    const state = paths();
    writeLeaseFile(state, lease('old', { createdAt: '2026-01-01T00:00:00.000Z' }));
    writeLeaseFile(state, lease('new', { createdAt: '2026-02-01T00:00:00.000Z' }));
    writeFileSync(join(state.leasesDir, 'torn.json'), '{"v":1,"id":');
    mkdirSync(join(state.leasesDir, 'not-a-lease.log'), { recursive: true });
    expect(listLeases(state, aliveSet()).map((status) => status.lease.id)).toEqual(['new', 'old']);
    expect(leaseFilePath(state, 'new')).toBe(join(state.leasesDir, 'new.json'));
  });

  it('lists nothing when the state dir does not exist yet', () => {
    expect(listLeases({ ...paths(), leasesDir: '/nonexistent/leases' })).toEqual([]);
  });

  it('with a cache, reuses an unchanged file, re-reads a rewritten one and forgets a deleted one', () => {
    const state = paths();
    const cache = createLeaseFileCache();
    writeLeaseFile(state, lease('a'));
    const [first] = listLeases(state, aliveSet(), cache);
    const [again] = listLeases(state, aliveSet(), cache);
    expect(again?.lease).toBe(first?.lease);
    writeLeaseFile(state, lease('a', { endedAt: 'x', endReason: 'holder_died' }));
    const [rewritten] = listLeases(state, aliveSet(), cache);
    expect(rewritten?.lease).not.toBe(first?.lease);
    expect(rewritten?.state).toBe('ended');
    unlinkSync(leaseFilePath(state, 'a'));
    expect(listLeases(state, aliveSet(), cache)).toEqual([]);
    writeLeaseFile(state, lease('a'));
    expect(listLeases(state, aliveSet(), cache)[0]?.state).toBe('holder_dead');
  });
});
