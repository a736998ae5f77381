/**
 * The lease registry: one JSON file per lease under `<state>/leases/`, so other processes (the
 * desktop app, `treewarden orphans`) see leases held by CLIs and harnesses. The lease's guardian
 * is the only writer of its file after creation, and each write is a rename of a complete temp
 * file, so readers never see half a lease.
 */
import { readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StatePaths } from '../state/state-dir.js';
import { readProcEntry } from '../table/linux-proc.js';
import { isZombie, type ProcessEntry, type ProcessIdentity } from '../table/types.js';

export interface LeaseRunInfo {
  readonly runId: string;
  readonly runDir: string;
  readonly command: string;
  readonly pid: number | null;
  readonly startTime: string | null;
  readonly startedAt: string;
  /** Effective timeout and deadline; absent in files written before they were kept. */
  readonly timeoutSeconds?: number;
  readonly deadlineAt?: string;
  readonly endedAt?: string;
  readonly classification?: string;
  /** Descendants the run kept on purpose (`keepDescendants`): released from the lease. */
  readonly kept?: readonly ProcessIdentity[];
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
  /** Set by the holder when the guardian died before the lease ended; the holder then supervises. */
  readonly guardianLostAt?: string;
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

/**
 * Alive = the pid exists with the same start time and is not a zombie (a zombie has stopped).
 * `read` lets a caller that needs the entry afterwards read each pid once.
 */
export function isIdentityAlive(
  identity: ProcessIdentity,
  read: (pid: number) => ProcessEntry | null = readProcEntry,
): boolean {
  const entry = read(identity.pid);
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

/**
 * Parsed lease files kept between reads by a poller, keyed by path. A file is re-read only when its
 * inode, size or mtime changed: every write is a rename of a new temp file, so any write changes the
 * inode. Unreadable files are not kept (a crash mid-create may be completed later).
 */
export interface LeaseFileCache {
  read(path: string): LeaseFile | null;
  /** Drops the files not in `paths` (deleted leases), so the cache never outgrows the directory. */
  keepOnly(paths: ReadonlySet<string>): void;
}

export function createLeaseFileCache(): LeaseFileCache {
  const entries = new Map<string, { readonly key: string; readonly lease: LeaseFile }>();
  return {
    read(path) {
      let key: string;
      try {
        const stat = statSync(path, { bigint: true });
        key = `${stat.ino}:${stat.size}:${stat.mtimeNs}`;
      } catch {
        entries.delete(path);
        return null;
      }
      const cached = entries.get(path);
      if (cached?.key === key) return cached.lease;
      const lease = readLeaseFile(path);
      if (lease === null) entries.delete(path);
      else entries.set(path, { key, lease });
      return lease;
    },
    keepOnly(paths) {
      for (const path of entries.keys()) if (!paths.has(path)) entries.delete(path);
    },
  };
}

/**
 * Every lease on record, newest first. Unreadable files (a crash mid-create) are skipped. Pollers
 * pass a `cache` so unchanged files are not re-read and re-parsed on every tick; liveness is
 * probed afresh either way.
 */
export function listLeases(
  paths: StatePaths,
  probe: IdentityProbe = isIdentityAlive,
  cache?: LeaseFileCache,
): LeaseStatus[] {
  let names: string[];
  try {
    names = readdirSync(paths.leasesDir).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const files = names.map((name) => join(paths.leasesDir, name));
  cache?.keepOnly(new Set(files));
  const leases = files.map((file) => (cache === undefined ? readLeaseFile(file) : cache.read(file)));
  return leases
    .filter((lease): lease is LeaseFile => lease !== null)
    .map((lease) => classifyLease(lease, probe))
    .sort((a, b) => b.lease.createdAt.localeCompare(a.lease.createdAt));
}
