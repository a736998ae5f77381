/**
 * The lease registry: one JSON file per lease under `<state>/leases/`, so other processes (the
 * desktop app, `treewarden orphans`) see leases held by CLIs and harnesses. The lease's guardian
 * is the only writer of its file after creation, and each write is a rename of a complete temp
 * file, so readers never see half a lease. Every file goes through the validated read
 * (lease-file.ts): a bad one is skipped and reported in `problems`, the others are listed.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type StatePaths, verifyStateDir } from '../state/state-dir.js';
import { readProcEntry } from '../table/linux-proc.js';
import { isZombie, type ProcessEntry, type ProcessIdentity } from '../table/types.js';
import { checkLeaseFile, type LeaseFile, type LeaseFileProblem, type LeaseFileRead, VANISHED } from './lease-file.js';

export {
  checkLeaseFile,
  type LeaseFile,
  type LeaseFileProblem,
  type LeaseFileRead,
  type LeaseRunInfo,
  leaseFilePath,
  MAX_LEASE_FILE_BYTES,
  readLeaseFile,
  writeLeaseFile,
} from './lease-file.js';

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

/** What one read of the registry found: the valid leases, and every file that was skipped. */
export interface LeaseRegistryRead {
  readonly leases: LeaseStatus[];
  readonly problems: LeaseFileProblem[];
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
 * Validated lease files kept between reads by a poller, keyed by path. A file is re-read only when
 * its inode, size or mtime changed: every write is a rename of a new temp file, so any write
 * changes the inode. Bad files are kept too, so a huge or corrupt one is not re-read every tick.
 */
export interface LeaseFileCache {
  read(path: string): LeaseFileRead;
  /** Drops the files not in `paths` (deleted leases), so the cache never outgrows the directory. */
  keepOnly(paths: ReadonlySet<string>): void;
}

export function createLeaseFileCache(): LeaseFileCache {
  const entries = new Map<string, { readonly key: string; readonly read: LeaseFileRead }>();
  return {
    read(path) {
      let key: string;
      try {
        const stat = lstatSync(path, { bigint: true });
        key = `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.mode}`;
      } catch {
        entries.delete(path);
        return { ok: false, problem: VANISHED };
      }
      const cached = entries.get(path);
      if (cached?.key === key) return cached.read;
      const read = checkLeaseFile(path);
      entries.set(path, { key, read });
      return read;
    },
    keepOnly(paths) {
      for (const path of entries.keys()) if (!paths.has(path)) entries.delete(path);
    },
  };
}

/** Lease files being written right now (`<id>.json.<pid>.tmp`) are not leases yet. */
function leaseFileNames(paths: StatePaths): string[] {
  try {
    return readdirSync(paths.leasesDir).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
}

/**
 * Every lease on record, newest first, plus the files that were skipped and why. Refuses an
 * untrusted state dir (StateDirError) before reading anything. Pollers pass a `cache` so
 * unchanged files are not re-read on every tick; liveness is probed afresh either way.
 */
export function readLeaseRegistry(
  paths: StatePaths,
  probe: IdentityProbe = isIdentityAlive,
  cache?: LeaseFileCache,
): LeaseRegistryRead {
  verifyStateDir(paths.root);
  const files = leaseFileNames(paths).map((name) => join(paths.leasesDir, name));
  cache?.keepOnly(new Set(files));
  const leases: LeaseStatus[] = [];
  const problems: LeaseFileProblem[] = [];
  for (const path of files) {
    const read = cache === undefined ? checkLeaseFile(path) : cache.read(path);
    // A file deleted between the listing and the read was a lease that ended, not a problem.
    if (read.ok) leases.push(classifyLease(read.lease, probe));
    else if (read.problem !== VANISHED) problems.push({ path, problem: read.problem });
  }
  leases.sort((a, b) => b.lease.createdAt.localeCompare(a.lease.createdAt));
  return { leases, problems };
}

/** The valid leases of `readLeaseRegistry`, for callers that have nowhere to report problems. */
export function listLeases(
  paths: StatePaths,
  probe: IdentityProbe = isIdentityAlive,
  cache?: LeaseFileCache,
): LeaseStatus[] {
  return readLeaseRegistry(paths, probe, cache).leases;
}
