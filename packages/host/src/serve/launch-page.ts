/**
 * Hands the token to the browser without putting it on any command line (`/proc/PID/cmdline` is
 * world-readable): a small page, readable by this user only, that sends the browser to the UI
 * with the token in the URL fragment (never sent to any server). The browser is given the page's
 * path. It lives in a private `launch/` directory of the state dir and is deleted when serve stops.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, lstatSync, mkdirSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const LAUNCH_DIR_NAME = 'launch';
const LAUNCH_DIR_MODE = 0o700;
const LAUNCH_FILE_MODE = 0o600;
const GROUP_OTHER_BITS = 0o077;
const NAME_RANDOM_BYTES = 8;

export interface LaunchPage {
  readonly path: string;
  /** Deletes the page; idempotent, never throws. */
  remove(): void;
}

/** The UI's URL with the token moved from the query to the fragment. */
export function launchTarget(port: number, address: string, token: string): string {
  return `http://${address}:${port}/#token=${encodeURIComponent(token)}`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** Redirects by script (no history entry for the launch page), by meta refresh without script. */
export function launchPageHtml(target: string): string {
  const attribute = escapeHtml(target);
  const script = JSON.stringify(target).replace(/</g, '\\u003c');
  return `<!doctype html>
<html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>Treewarden</title>
<meta http-equiv="refresh" content="0;url=${attribute}">
<script>location.replace(${script});</script></head>
<body><p><a href="${attribute}">Open Treewarden</a></p></body></html>
`;
}

/** Creates (or checks) the private launch directory; another user's or a loose one is refused. */
function ensurePrivateDir(stateRoot: string): string {
  const dir = join(stateRoot, LAUNCH_DIR_NAME);
  mkdirSync(dir, { recursive: true, mode: LAUNCH_DIR_MODE });
  const stat = lstatSync(dir);
  const uid = process.getuid?.();
  if (!stat.isDirectory() || stat.isSymbolicLink())
    throw new Error(`${dir} is not a directory: remove it and start again`);
  if (uid !== undefined && stat.uid !== uid)
    throw new Error(`${dir} belongs to uid ${stat.uid}, not to you: remove it`);
  if (process.platform !== 'win32' && (stat.mode & GROUP_OTHER_BITS) !== 0) {
    throw new Error(`${dir} is readable by others (mode ${(stat.mode & 0o777).toString(8)}): run chmod 700 on it`);
  }
  return dir;
}

const LAUNCH_FILE_PATTERN = /^serve-(\d+)-[0-9a-f]+\.html$/;

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Pages left by a serve that died without cleaning up (SIGKILL, power loss). Their tokens died
 * with it, so this is tidiness, not safety: a reused pid merely keeps a dead page a while longer.
 */
function removeStalePages(dir: string): void {
  for (const name of readdirSync(dir)) {
    const pid = LAUNCH_FILE_PATTERN.exec(name)?.[1];
    if (pid !== undefined && !isProcessAlive(Number(pid))) rmSync(join(dir, name), { force: true });
  }
}

export function writeLaunchPage(stateRoot: string, target: string): LaunchPage {
  const dir = ensurePrivateDir(stateRoot);
  removeStalePages(dir);
  const path = join(dir, `serve-${process.pid}-${randomBytes(NAME_RANDOM_BYTES).toString('hex')}.html`);
  // 'wx' is O_CREAT|O_EXCL: never follows a planted symlink, never reuses someone's file.
  const fd = openSync(path, 'wx', LAUNCH_FILE_MODE);
  try {
    writeSync(fd, launchPageHtml(target));
  } finally {
    closeSync(fd);
  }
  return { path, remove: () => rmSync(path, { force: true }) };
}
