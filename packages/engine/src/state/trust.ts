/**
 * Whether a state path can be trusted. Another local user may have created the state dir (or a
 * symlink in its place) before us and planted records in it; the ledger and the lease registry
 * decide what gets killed, so a path we did not create privately is refused before anything is
 * read from it or written to it. The checks use lstat, so a symlink is seen as a symlink.
 */
import { type BigIntStats, closeSync, constants, fstatSync, lstatSync, openSync } from 'node:fs';

/** Group or other may read, write or enter: the mode bits a private state path must not have. */
export const SHARED_MODE_BITS = 0o077;
export const STATE_DIR_ERROR_CODE = 'ETREEWARDEN_STATE';

export type StatePathKind = 'directory' | 'file';

/** A state path that must not be trusted; `fix` says what the user can do about it. */
export class StateDirError extends Error {
  override readonly name = 'StateDirError';
  readonly code = STATE_DIR_ERROR_CODE;
  constructor(
    readonly path: string,
    readonly problem: string,
    readonly fix: string,
  ) {
    super(`refusing the Treewarden state path ${path}: ${problem}; ${fix}. Nothing was read or written.`);
  }
}

/** True for a StateDirError, also one thrown by another copy of this module (src vs dist). */
export function isStateDirError(error: unknown): error is StateDirError {
  return error instanceof Error && (error as { code?: unknown }).code === STATE_DIR_ERROR_CODE;
}

function currentUid(): number | null {
  return typeof process.getuid === 'function' ? process.getuid() : null;
}

function lstatOrNull(path: string): BigIntStats | null {
  try {
    return lstatSync(path, { bigint: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new StateDirError(path, `it cannot be inspected (${(error as Error).message})`, 'check its permissions');
  }
}

/**
 * Throws StateDirError unless `path` is absent or is a `kind` (not a symlink) owned by the current
 * user with no group/other permissions. Returns false when the path does not exist.
 */
export function checkPrivatePath(path: string, kind: StatePathKind): boolean {
  const stat = lstatOrNull(path);
  if (stat === null) return false;
  if (stat.isSymbolicLink()) {
    throw new StateDirError(
      path,
      'it is a symbolic link',
      `remove the symlink (rm ${path}) and let Treewarden create it`,
    );
  }
  const isKind = kind === 'directory' ? stat.isDirectory() : stat.isFile();
  if (!isKind) throw new StateDirError(path, `it is not a regular ${kind}`, `move it away (mv ${path} ${path}.bad)`);
  const uid = currentUid();
  if (uid !== null && Number(stat.uid) !== uid) {
    throw new StateDirError(
      path,
      `it is owned by uid ${stat.uid}, not by you (uid ${uid})`,
      `remove it if you do not know who created it, or chown ${uid} ${path}`,
    );
  }
  const mode = Number(stat.mode) & 0o777;
  if ((mode & SHARED_MODE_BITS) !== 0) {
    const wanted = kind === 'directory' ? '700' : '600';
    throw new StateDirError(
      path,
      `its mode ${mode.toString(8).padStart(3, '0')} lets other users in`,
      `chmod ${wanted} ${path}`,
    );
  }
  return true;
}

function checkOpened(path: string, fd: number, uid: number | null): void {
  const stat = fstatSync(fd);
  let failure: StateDirError | null = null;
  if (!stat.isFile())
    failure = new StateDirError(path, 'it is not a regular file', `move it away (mv ${path} ${path}.bad)`);
  else if (uid !== null && stat.uid !== uid) {
    failure = new StateDirError(
      path,
      `it is owned by uid ${stat.uid}, not by you (uid ${uid})`,
      `remove it (rm ${path})`,
    );
  } else if ((stat.mode & SHARED_MODE_BITS) !== 0) {
    failure = new StateDirError(
      path,
      `its mode ${(stat.mode & 0o777).toString(8)} lets other users in`,
      `chmod 600 ${path}`,
    );
  }
  if (failure !== null) {
    closeSync(fd);
    throw failure;
  }
}

/**
 * Opens a state file without following a symlink (O_NOFOLLOW) or blocking on a FIFO (O_NONBLOCK),
 * then checks the opened file itself: a regular file, ours, private. Null when it does not exist
 * (and `flags` do not create it). The caller closes the descriptor.
 */
export function openPrivateFile(path: string, flags: number, mode = 0o600): number | null {
  let fd: number;
  try {
    fd = openSync(path, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') {
      throw new StateDirError(path, 'it is a symbolic link', `remove the symlink (rm ${path})`);
    }
    if (code === 'EISDIR') throw new StateDirError(path, 'it is a directory', `move it away (mv ${path} ${path}.bad)`);
    throw error;
  }
  checkOpened(path, fd, currentUid());
  return fd;
}
