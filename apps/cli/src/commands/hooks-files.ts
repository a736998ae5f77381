/**
 * Where each agent keeps its hook settings, and reading/writing them safely. Only a regular file
 * is read or replaced: a FIFO, a device, a dangling symlink or a directory is refused with its
 * reason, never opened blocking nor replaced. The file's directory must not be writable by other
 * users (nor any ancestor without the sticky bit), so nobody can swap a symlink in under us; the
 * file is opened O_NOFOLLOW and the opened fd must be the inode that was looked at. A write goes
 * to a temp file in the same directory, keeps the file's owner and mode (root installing into
 * another user's settings leaves them that user's), is flushed, then renamed over the file, all
 * under a lock file so two installs at once cannot lose an update. A symlinked settings file (as
 * dotfile managers keep them) is written through to its target.
 */
import { randomBytes } from 'node:crypto';
import {
  type BigIntStats,
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';

export type HookScope = 'user' | 'project';
/** Settings files are a few KiB; a bigger one is refused rather than rewritten. */
export const MAX_SETTINGS_BYTES = 4 * 1024 * 1024;
const NEW_FILE_MODE = 0o600;
const NEW_DIR_MODE = 0o700;
/** How long an install waits for another one's lock before giving up with a reason. */
export const LOCK_WAIT_MS = 15_000;
const LOCK_POLL_MS = 20;
const OTHER_WRITE = 0o002;
const STICKY = 0o1000;

/** Anything wrong with the settings file or its place; nothing was written when it is thrown. */
export class SettingsReadError extends Error {
  override readonly name = 'SettingsReadError';
}

function home(env: NodeJS.ProcessEnv): string {
  return env.HOME !== undefined && isAbsolute(env.HOME) ? env.HOME : homedir();
}

/** An agent's config-dir variable: unset or empty is the default; a relative one is refused, not ignored. */
function envDir(env: NodeJS.ProcessEnv, name: string): string | null {
  const value = env[name];
  if (value === undefined || value === '') return null;
  if (!isAbsolute(value))
    throw new SettingsReadError(`${name}=${JSON.stringify(value)} is a relative path; set it to an absolute directory`);
  return value;
}

/** The settings file of `agent` for `scope` (project: under `cwd`). */
export function settingsPath(agent: string, scope: HookScope, cwd: string, env: NodeJS.ProcessEnv): string {
  if (agent === 'claude')
    return scope === 'project'
      ? join(cwd, '.claude', 'settings.json')
      : join(envDir(env, 'CLAUDE_CONFIG_DIR') ?? join(home(env), '.claude'), 'settings.json');
  if (agent === 'codex')
    return scope === 'project'
      ? join(cwd, '.codex', 'hooks.json')
      : join(envDir(env, 'CODEX_HOME') ?? join(home(env), '.codex'), 'hooks.json');
  if (agent === 'qwen')
    // Qwen Code: QWEN_HOME is the .qwen directory itself (Storage.getGlobalQwenDir, 0.24.4).
    return scope === 'project'
      ? join(cwd, '.qwen', 'settings.json')
      : join(envDir(env, 'QWEN_HOME') ?? join(home(env), '.qwen'), 'settings.json');
  return scope === 'project'
    ? join(cwd, '.gemini', 'settings.json')
    : join(envDir(env, 'GEMINI_CLI_HOME') ?? home(env), '.gemini', 'settings.json');
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function lstatOrNull(path: string): BigIntStats | null {
  try {
    return lstatSync(path, { bigint: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    throw new SettingsReadError(`cannot inspect ${path}: ${errorText(error)}`);
  }
}

function kindOf(stat: BigIntStats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

function myUid(): number | null {
  return typeof process.getuid === 'function' ? process.getuid() : null;
}

/** Refuses a directory (or ancestor) where another user could swap or plant entries. */
function checkTrustedDir(dir: string): void {
  const uid = myUid();
  let current = dir;
  for (;;) {
    const stat = lstatOrNull(current);
    if (stat !== null) {
      const mode = Number(stat.mode);
      const owner = Number(stat.uid);
      const isFinal = current === dir;
      // A symlink's own mode is always 777 and means nothing; its owner and its target's dirs do.
      if (!stat.isSymbolicLink() && (mode & OTHER_WRITE) !== 0 && (isFinal || (mode & STICKY) === 0))
        throw new SettingsReadError(
          `${current} is writable by other users (mode ${(mode & 0o7777).toString(8)}), so another user could plant a symlink in it; chmod o-w ${current} first`,
        );
      if (uid !== null && owner !== uid && owner !== 0)
        throw new SettingsReadError(
          `${current} is owned by uid ${owner}, not by you (uid ${uid}) or root; refusing to write settings under it`,
        );
    }
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  // Through a symlinked directory, the directories actually written in must be trusted too.
  const real = realDirOrNull(dir);
  if (real !== null && real !== dir) checkTrustedDir(real);
}

function realDirOrNull(dir: string): string | null {
  try {
    return realpathSync(dir);
  } catch {
    return null;
  }
}

/** Follows a symlinked settings file to its target; a dangling one is refused, never replaced. */
function resolveTarget(file: string): string {
  const stat = lstatOrNull(file);
  if (stat === null || !stat.isSymbolicLink()) return file;
  try {
    return realpathSync(file);
  } catch (error) {
    throw new SettingsReadError(
      `${file} is a symbolic link whose target cannot be resolved (${errorText(error)}); fix or remove the link`,
    );
  }
}

export interface LoadedSettings {
  /** The file that is read and replaced (a symlink's target). */
  readonly target: string;
  /** The bytes as latin1 text (one char per byte; '' when absent). */
  readonly text: string;
  /** The file's inode, owner and mode; null when it does not exist yet. */
  readonly stat: BigIntStats | null;
}

function readBounded(fd: number, path: string): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.alloc(64 * 1024);
    const n = readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) return Buffer.concat(chunks, total);
    total += n;
    if (total > MAX_SETTINGS_BYTES)
      throw new SettingsReadError(`${path} is larger than ${MAX_SETTINGS_BYTES} bytes; not rewriting it`);
    chunks.push(chunk.subarray(0, n));
  }
}

/**
 * Reads the settings at `file` safely: never blocks on a FIFO, never reads a device, never
 * follows a symlink swapped in after the look. Absent: empty text and a null stat.
 */
export function loadSettings(file: string): LoadedSettings {
  const target = resolveTarget(file);
  checkTrustedDir(dirname(target));
  const before = lstatOrNull(target);
  if (before === null) return { target, text: '', stat: null };
  if (!before.isFile()) throw new SettingsReadError(`${target} is ${kindOf(before)}; only a regular file is edited`);
  let fd: number;
  try {
    fd = openSync(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    throw new SettingsReadError(`cannot open ${target}: ${errorText(error)}`);
  }
  try {
    const opened = fstatSync(fd, { bigint: true });
    if (!opened.isFile()) throw new SettingsReadError(`${target} is ${kindOf(opened)}; only a regular file is edited`);
    if (opened.dev !== before.dev || opened.ino !== before.ino)
      throw new SettingsReadError(`${target} was replaced while being opened; try again`);
    if (opened.size > BigInt(MAX_SETTINGS_BYTES))
      throw new SettingsReadError(`${target} is larger than ${MAX_SETTINGS_BYTES} bytes; not rewriting it`);
    return { target, text: readBounded(fd, target).toString('latin1'), stat: opened };
  } catch (error) {
    if (error instanceof SettingsReadError) throw error;
    throw new SettingsReadError(`cannot read ${target}: ${errorText(error)}`);
  } finally {
    closeSync(fd);
  }
}

/** Creates missing directories; as root, each new one belongs to the owner of the one it is made in. */
function ensureDir(dir: string): void {
  const stat = lstatOrNull(dir);
  if (stat !== null) {
    if (!statSync(dir).isDirectory()) throw new SettingsReadError(`${dir} is not a directory`);
    return;
  }
  const parent = dirname(dir);
  if (parent === dir) throw new SettingsReadError(`${dir} does not exist`);
  ensureDir(parent);
  mkdirSync(dir, { mode: NEW_DIR_MODE });
  const owner = statSync(parent);
  if (myUid() === 0 && (owner.uid !== 0 || owner.gid !== 0)) chownPath(dir, owner.uid, owner.gid);
}

function chownPath(path: string, uid: number, gid: number): void {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_DIRECTORY);
  try {
    fchownSync(fd, uid, gid);
  } finally {
    closeSync(fd);
  }
}

/** This process's start time (field 22 of /proc/self/stat): with the pid, the lock holder's identity. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** A lock whose holder (pid + start time) no longer runs is stale. */
function isStale(lock: string): boolean {
  let content: string;
  try {
    content = readFileSync(lock, 'latin1');
  } catch {
    return false;
  }
  const [pid, start] = content.trim().split(' ');
  if (pid === undefined || start === undefined || !/^\d+$/.test(pid)) return content.trim() !== '';
  return startTimeOf(Number(pid)) !== start;
}

function takeLock(lock: string): number {
  const deadline = Date.now() + LOCK_WAIT_MS;
  const identity = `${process.pid} ${startTimeOf(process.pid) ?? '0'}\n`;
  for (;;) {
    try {
      const fd = openSync(
        lock,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      );
      writeSync(fd, identity);
      return fd;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new SettingsReadError(`cannot create the lock ${lock}: ${errorText(error)}`);
    }
    if (isStale(lock)) {
      rmSync(lock, { force: true });
      continue;
    }
    if (Date.now() > deadline)
      throw new SettingsReadError(
        `${lock} is held by another install for more than ${LOCK_WAIT_MS} ms; remove it if no treewarden hooks command is running`,
      );
    sleepSync(LOCK_POLL_MS);
  }
}

/**
 * Runs `edit` on the freshly read settings under the file's lock, and writes what it returns
 * (null: nothing to write). The read happens under the lock, so a concurrent install's update is
 * seen, never overwritten.
 */
export function updateSettings<T>(
  file: string,
  edit: (loaded: LoadedSettings) => { text: string; result: T } | null,
): T | null {
  const first = resolveTarget(file);
  checkTrustedDir(dirname(first));
  try {
    ensureDir(dirname(first));
  } catch (error) {
    if (error instanceof SettingsReadError) throw error;
    throw new SettingsReadError(`cannot create ${dirname(first)}: ${errorText(error)}`);
  }
  const lock = join(dirname(first), `.${basename(first)}.treewarden.lock`);
  const lockFd = takeLock(lock);
  try {
    const loaded = loadSettings(file);
    const change = edit(loaded);
    if (change === null) return null;
    writeReplacing(loaded, change.text);
    return change.result;
  } finally {
    closeSync(lockFd);
    unlinkSync(lock);
  }
}

function ownerFor(loaded: LoadedSettings): { uid: number; gid: number; mode: number } {
  if (loaded.stat !== null)
    return { uid: Number(loaded.stat.uid), gid: Number(loaded.stat.gid), mode: Number(loaded.stat.mode) & 0o7777 };
  const dir = statSync(dirname(loaded.target));
  return { uid: dir.uid, gid: dir.gid, mode: NEW_FILE_MODE };
}

function writeReplacing(loaded: LoadedSettings, text: string): void {
  const dir = dirname(loaded.target);
  const temp = join(dir, `.${basename(loaded.target)}.treewarden-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  const { uid, gid, mode } = ownerFor(loaded);
  let fd: number;
  try {
    fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    throw new SettingsReadError(`cannot write in ${dir}: ${errorText(error)}`);
  }
  try {
    try {
      const me = myUid();
      // Root writing another user's file: the file stays theirs (and so readable by them).
      if (me === 0 && (uid !== 0 || gid !== 0)) fchownSync(fd, uid, gid);
      fchmodSync(fd, mode);
      writeSync(fd, Buffer.from(text, 'latin1'));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    const now = lstatOrNull(loaded.target);
    const same =
      loaded.stat === null ? now === null : now !== null && now.dev === loaded.stat.dev && now.ino === loaded.stat.ino;
    if (!same) throw new SettingsReadError(`${loaded.target} changed while being edited; nothing written, try again`);
    renameSync(temp, loaded.target);
  } catch (error) {
    rmSync(temp, { force: true });
    if (error instanceof SettingsReadError) throw error;
    throw new SettingsReadError(`cannot write ${loaded.target}: ${errorText(error)}`);
  }
}
