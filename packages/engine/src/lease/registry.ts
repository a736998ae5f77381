/**
 * The lease registry: one JSON file per lease under `<state>/leases/`, so other processes (the
 * desktop app, `treewarden orphans`) see leases held by CLIs and harnesses. The lease's guardian
 * is the only writer of its file after creation, and each write is a rename of a complete temp
 * file, so readers never see half a lease.
 */
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StatePaths } from '../state/state-dir.js';
import { readProcEntry } from '../table/linux-proc.js';
import { isZombie, type ProcessIdentity } from '../table/types.js';

export interface LeaseRunInfo {
  readonly runId: string;
  readonly runDir: string;
  readonly command: string;
  readonly pid: number | null;
  readonly startTime: string | null;
  readonly startedAt: string;
  readonly endedAt?: string;
  readonly classification?: string;
}

export interface LeaseFile {
  readonly v: 1;
  readonly id: string;
  readonly name: string;
  readonly holder: ProcessIdentity;
  readonly holderLabel?: string;
  readonly holderSession?: { readonly sid: number; readonly pgid: number };
  readonly guardian: ProcessIdentity;
  readonly createdAt: string;
  /** True when the guardian became a child subreaper (Linux). */
  readonly subreaper: boolean;
  readonly runs: readonly LeaseRunInfo[];
  readonly releasedAt?: string;
  readonly endedAt?: string;
  readonly endReason?: 'released' | 'holder_died';
}

/**
 * `held`: holder alive, lease open. `holder_dead`: the holder is gone but the guardian has not
 * recorded an end (it is ending the runs now, or it died too). `released` / `ended`: the lease is
 * over, by release or by the guardian after the holder died.
 */
export type LeaseState = 'held' | 'holder_dead' | 'released' | 'ended';

export interface LeaseStatus {
  readonly lease: LeaseFile;
  readonly state: LeaseState;
  readonly holderAlive: boolean;
  readonly guardianAlive: boolean;
}

export type IdentityProbe = (identity: ProcessIdentity) => boolean;

/** Alive = the pid exists with the same start time and is not a zombie (a zombie has stopped). */
export function isIdentityAlive(identity: ProcessIdentity): boolean {
  const entry = readProcEntry(identity.pid);
  return entry !== null && entry.startTime === identity.startTime && !isZombie(entry);
}

export function leaseFilePath(paths: StatePaths, leaseId: string): string {
  return join(paths.leasesDir, `${leaseId}.json`);
}

export function writeLeaseFile(paths: StatePaths, lease: LeaseFile): void {
  const target = leaseFilePath(paths, lease.id);
  const temp = `${target}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(lease, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, target);
}

export function readLeaseFile(path: string): LeaseFile | null {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as LeaseFile;
    return value.v === 1 && typeof value.id === 'string' ? value : null;
  } catch {
    return null;
  }
}

export function classifyLease(lease: LeaseFile, probe: IdentityProbe = isIdentityAlive): LeaseStatus {
  const holderAlive = probe(lease.holder);
  const guardianAlive = probe(lease.guardian);
  let state: LeaseState;
  if (lease.endReason === 'released' || (lease.releasedAt !== undefined && lease.endedAt === undefined)) {
    state = 'released';
  } else if (lease.endedAt !== undefined) state = 'ended';
  else state = holderAlive ? 'held' : 'holder_dead';
  return { lease, state, holderAlive, guardianAlive };
}

/** Every lease on record, newest first. Unreadable files (a crash mid-create) are skipped. */
export function listLeases(paths: StatePaths, probe: IdentityProbe = isIdentityAlive): LeaseStatus[] {
  let names: string[];
  try {
    names = readdirSync(paths.leasesDir).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const leases = names.map((name) => readLeaseFile(join(paths.leasesDir, name)));
  return leases
    .filter((lease): lease is LeaseFile => lease !== null)
    .map((lease) => classifyLease(lease, probe))
    .sort((a, b) => b.lease.createdAt.localeCompare(a.lease.createdAt));
}
