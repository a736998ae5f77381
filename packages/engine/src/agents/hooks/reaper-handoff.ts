/**
 * How the hook hands the reaper its config: a private file (0600, created exclusively) in the
 * state dir's `reaper/` (0700), named on the reaper's command line. Never the event itself on the
 * command line: argv is readable by every user (/proc/PID/cmdline) and bounded in size (a 200 KB
 * event did not start a reaper at all). The reaper checks the file (ours, private, regular, no
 * symlink, bounded), reads it and removes it. Zod-free: the hook's fast path loads this.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, mkdirSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ensureStateDir } from '../../state/state-dir.js';
import { checkPrivatePath, openPrivateFile } from '../../state/trust.js';
import { MAX_HOOK_INPUT_BYTES } from './hook-agents.js';

/** The event (at most MAX_HOOK_INPUT_BYTES, JSON-escaped up to 6× per byte) plus the ancestor chain. */
export const MAX_HANDOFF_BYTES = MAX_HOOK_INPUT_BYTES * 6 + 1024 * 1024;
const HANDOFF_DIR = 'reaper';
const HANDOFF_NAME = /^session-end-[0-9a-f]{32}\.json$/;

/** Writes the config to a new private file; returns its path (the reaper's only argument). */
export function writeHandoff(stateRoot: string, config: unknown): string {
  const paths = ensureStateDir(stateRoot);
  const dir = join(paths.root, HANDOFF_DIR);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  checkPrivatePath(dir, 'directory');
  const path = join(dir, `session-end-${randomBytes(16).toString('hex')}.json`);
  const fd = openPrivateFile(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  if (fd === null) throw new Error(`could not create ${path}`);
  try {
    const bytes = Buffer.from(JSON.stringify(config), 'utf8');
    for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset);
  } finally {
    closeSync(fd);
  }
  return path;
}

/**
 * The config a hand-off file holds, parsed but not validated (the caller's schema does that), and
 * the file removed; null when the path is not a hand-off file or the file is not ours and private.
 */
export function readHandoff(path: string): unknown {
  if (!HANDOFF_NAME.test(basename(path)) || basename(dirname(path)) !== HANDOFF_DIR) return null;
  let fd: number | null = null;
  try {
    checkPrivatePath(dirname(path), 'directory');
    fd = openPrivateFile(path, constants.O_RDONLY);
    if (fd === null) return null;
    const size = fstatSync(fd).size;
    if (size > MAX_HANDOFF_BYTES) return null;
    const bytes = Buffer.alloc(size);
    for (let offset = 0; offset < size; ) {
      const read = readSync(fd, bytes, offset, size - offset, offset);
      if (read === 0) break;
      offset += read;
    }
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
    try {
      unlinkSync(path);
    } catch {
      // Already gone, or not ours to remove: nothing else to do.
    }
  }
}
