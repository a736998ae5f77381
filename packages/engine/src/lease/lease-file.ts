/**
 * One lease file of the registry (`<state>/leases/<id>.json`): its shape, its schema, and the
 * validated read. A file is believed only when it is a private regular file of this user, not
 * larger than MAX_LEASE_FILE_BYTES, valid UTF-8 and valid JSON matching the schema; anything else
 * is a problem reported on its own, so one bad file never hides the other leases.
 */
import { closeSync, constants, fstatSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { identitySchema } from '../ledger/schema.js';
import { CLASSIFICATIONS } from '../run/types.js';
import type { StatePaths } from '../state/state-dir.js';
import { isStateDirError, openPrivateFile } from '../state/trust.js';

/** Far above any real lease (a run entry is ~0.5 KB); a bigger file is refused unread. */
export const MAX_LEASE_FILE_BYTES = 4 * 1024 * 1024;
/** Lease and run ids as we generate them; anything else could name a path outside the registry. */
export const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

const safeId = z.string().regex(SAFE_ID, 'must be letters, digits, ".", "_" or "-"');
const isoTime = z.string().max(64);

const leaseRunSchema = z.looseObject({
  runId: safeId,
  runDir: z.string().max(4096),
  command: z.string(),
  pid: z.number().int().positive().nullable(),
  startTime: z.string().nullable(),
  startedAt: isoTime,
  /** Effective timeout and deadline; absent in files written before they were kept. */
  timeoutSeconds: z.number().positive().optional(),
  deadlineAt: isoTime.optional(),
  endedAt: isoTime.optional(),
  classification: z.enum(CLASSIFICATIONS).optional(),
  /** Descendants the run kept on purpose (`keepDescendants`): released from the lease. */
  kept: z.array(identitySchema).readonly().optional(),
  /** Started with `keepAfterLease`: supervised past the lease's end, until it ends. */
  keepAfterLease: z.boolean().optional(),
});

export const leaseFileSchema = z.looseObject({
  v: z.literal(1),
  id: safeId,
  name: z.string().max(1000),
  holder: identitySchema,
  holderLabel: z.string().max(1000).optional(),
  holderSession: z.object({ sid: z.number().int().nonnegative(), pgid: z.number().int().nonnegative() }).optional(),
  guardian: identitySchema,
  createdAt: isoTime,
  /** True when the guardian became a child subreaper (Linux). */
  subreaper: z.boolean(),
  runs: z.array(leaseRunSchema),
  releasedAt: isoTime.optional(),
  endedAt: isoTime.optional(),
  endReason: z.enum(['released', 'holder_died']).optional(),
  /** Set by the holder when the guardian died before the lease ended; the holder then supervises. */
  guardianLostAt: isoTime.optional(),
});

export type LeaseRunInfo = z.infer<typeof leaseRunSchema>;
export type LeaseFile = z.infer<typeof leaseFileSchema>;

/** A lease file that was skipped, and why; carried to the caller instead of failing the read. */
export interface LeaseFileProblem {
  readonly path: string;
  readonly problem: string;
}

/** A file deleted between listing and reading: a lease that ended, not a problem. */
export const VANISHED = 'vanished while being read';

export type LeaseFileRead =
  | { readonly ok: true; readonly lease: LeaseFile }
  | { readonly ok: false; readonly problem: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function leaseFilePath(paths: StatePaths, leaseId: string): string {
  if (!SAFE_ID.test(leaseId))
    throw new Error(`lease id "${leaseId}" may only contain letters, digits, ".", "_" and "-"`);
  return join(paths.leasesDir, `${leaseId}.json`);
}

export function writeLeaseFile(paths: StatePaths, lease: LeaseFile): void {
  const target = leaseFilePath(paths, lease.id);
  const temp = `${target}.${process.pid}.tmp`;
  // `wx` after removing a stale temp: never write through a file (or symlink) left at that name.
  rmSync(temp, { force: true });
  writeFileSync(temp, `${JSON.stringify(lease, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  renameSync(temp, target);
}

function readText(path: string): { readonly text: string } | { readonly problem: string } {
  let fd: number | null;
  try {
    fd = openPrivateFile(path, constants.O_RDONLY);
  } catch (error) {
    if (isStateDirError(error)) return { problem: `${error.problem}; ${error.fix}` };
    return { problem: `unreadable (${(error as Error).message})` };
  }
  if (fd === null) return { problem: VANISHED };
  try {
    const size = fstatSync(fd).size;
    if (size > MAX_LEASE_FILE_BYTES) return { problem: `${size} bytes, more than ${MAX_LEASE_FILE_BYTES}` };
    return { text: utf8.decode(readFileSync(fd)) };
  } catch (error) {
    return { problem: error instanceof TypeError ? 'not valid UTF-8' : `unreadable (${(error as Error).message})` };
  } finally {
    closeSync(fd);
  }
}

/** Reads and validates one lease file; never throws. */
export function checkLeaseFile(path: string): LeaseFileRead {
  const read = readText(path);
  if ('problem' in read) return { ok: false, problem: read.problem };
  let value: unknown;
  try {
    value = JSON.parse(read.text);
  } catch {
    return { ok: false, problem: 'not valid JSON (truncated or corrupt)' };
  }
  const parsed = leaseFileSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, problem: `not a lease file: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? ''}` };
  }
  return { ok: true, lease: parsed.data };
}

/** The lease in a file, or null when it is not a valid one (see checkLeaseFile for why). */
export function readLeaseFile(path: string): LeaseFile | null {
  const read = checkLeaseFile(path);
  return read.ok ? read.lease : null;
}
