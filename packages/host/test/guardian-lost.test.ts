/**
 * A lease whose guardian died while its holder lived reaches the UI as "guardian lost": the lease
 * file's mark (written by the holder that took the runs over) flows through the engine port and
 * the snapshot into a LeaseView that passes the protocol's schema.
 */
import { rmSync } from 'node:fs';
import { readProcEntry } from '@treewarden/engine';
import { ensureStateDir } from '@treewarden/engine/state/index';
import { leaseViewSchema } from '@treewarden/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { writeLeaseFile } from '../../engine/src/lease/registry.js';
import { makeTempDir } from '../../engine/test/helpers/index.js';
import { createEnginePort } from '../src/engine/binding.js';
import { buildSnapshot } from '../src/snapshot/build-snapshot.js';

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
      leases: leases.map((lease) => ({ ...lease, runs: [] })),
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
