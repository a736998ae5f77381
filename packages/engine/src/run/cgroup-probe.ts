/**
 * Is there a cgroup v2 parent this user may manage? A usable parent is a directory of the cgroup2
 * mount that we own and may write, under which a child cgroup has `cgroup.kill` (kernel ≥ 5.14).
 * Two shapes are common: a `systemd --user` delegation (`user@UID.service`, usually with memory
 * and pids), and, as root on a hybrid hierarchy, the cgroup2 mount itself (`/sys/fs/cgroup/unified`,
 * often without memory and pids: those are on v1 there). Runs go to `<parent>/treewarden/<runId>`.
 * The hierarchy's root never shows `cgroup.kill`, so there the probe creates our own `treewarden`
 * directory and checks that one: a kill path we did not see is not one we promise.
 */
import { accessSync, constants, lstatSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { RunSpecError } from './spec-error.js';

/** The directory under the parent that holds one cgroup per run. */
export const CGROUP_HOME_NAME = 'treewarden';
/** Our cgroup directories: the owner alone may create or move processes into them. */
export const CGROUP_DIR_MODE = 0o700;

export type CgroupProbe =
  | {
      readonly available: true;
      /** The parent cgroup directory (the runs live in `<path>/treewarden/<runId>`). */
      readonly path: string;
      /** Controllers the parent offers (cgroup.controllers), e.g. `memory`, `pids`; may be empty. */
      readonly controllers: readonly string[];
    }
  | { readonly available: false; readonly reason: string };

export interface CgroupProbeDeps {
  readonly readText: (path: string) => string | null;
  /** A directory owned by `uid` (or by root when uid is 0) that this process may write. */
  readonly isOwnWritableDir: (path: string, uid: number) => boolean;
  readonly exists: (path: string) => boolean;
  /** Creates our home directory (mode CGROUP_DIR_MODE) unless it exists; false when it cannot. */
  readonly ensureHome: (path: string, uid: number) => boolean;
  readonly uid: number;
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function isOwnWritableDir(path: string, uid: number): boolean {
  try {
    const stat = lstatSync(path);
    accessSync(path, constants.W_OK);
    return stat.isDirectory() && stat.uid === uid;
  } catch {
    return false;
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A home someone else created (another user, via a delegation) is never ours to use. */
function ensureHome(path: string, uid: number): boolean {
  try {
    mkdirSync(path, { mode: CGROUP_DIR_MODE });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
  }
  return isOwnWritableDir(path, uid);
}

export const defaultCgroupProbeDeps = (): CgroupProbeDeps => ({
  readText,
  isOwnWritableDir,
  exists,
  ensureHome,
  uid: process.getuid?.() ?? -1,
});

/** The cgroup2 mount point, from mountinfo (field 5 is the mount point; the fs type follows ` - `). */
export function findCgroup2Mount(mountinfo: string): string | null {
  for (const line of mountinfo.split('\n')) {
    const [before, after] = line.split(' - ');
    if (after?.startsWith('cgroup2 ')) return before?.split(' ')[4] ?? null;
  }
  return null;
}

/** Our own cgroup v2 path, from `0::/PATH` in /proc/self/cgroup. */
function ownCgroup(selfCgroup: string): string {
  return /^0::(\/.*)$/m.exec(selfCgroup)?.[1] ?? '/';
}

/** The deepest cgroup both paths are under (`/a/b`, `/a/c/d` → `/a`). */
export function commonAncestor(first: string, second: string): string {
  const a = first.split('/').filter(Boolean);
  const b = second.split('/').filter(Boolean);
  let shared = 0;
  while (shared < a.length && a[shared] === b[shared]) shared += 1;
  return `/${a.slice(0, shared).join('/')}`;
}

/** Our own cgroup and its ancestors, deepest first, then the user manager's delegation and the mount root. */
function candidatePaths(own: string, uid: number): string[] {
  const paths: string[] = [];
  for (let path = own; path !== '/' && path !== ''; path = path.slice(0, path.lastIndexOf('/')) || '/') {
    paths.push(path);
  }
  // A shell in a login session sits in session-N.scope; the delegation is the user manager's.
  paths.push(`/user.slice/user-${uid}.slice/user@${uid}.service`);
  // Root may use the mount itself (a hybrid hierarchy's cgroup2 mount is root's alone).
  paths.push('/');
  return [...new Set(paths)];
}

/** Where `cgroup.kill` can be seen: in the parent, or (the hierarchy's root never has one) in our home. */
function hasKill(deps: CgroupProbeDeps, parent: string): boolean {
  if (deps.exists(join(parent, 'cgroup.kill'))) return true;
  const home = join(parent, CGROUP_HOME_NAME);
  return deps.ensureHome(home, deps.uid) && deps.exists(join(home, 'cgroup.kill'));
}

export function probeCgroup(deps: CgroupProbeDeps = defaultCgroupProbeDeps()): CgroupProbe {
  const mountinfo = deps.readText('/proc/self/mountinfo');
  if (mountinfo === null) return { available: false, reason: 'no /proc/self/mountinfo (cgroups are Linux only)' };
  const mount = findCgroup2Mount(mountinfo);
  if (mount === null) return { available: false, reason: 'no cgroup2 file system is mounted' };
  let writableWithoutKill: string | null = null;
  let unreachable: string | null = null;
  const own = ownCgroup(deps.readText('/proc/self/cgroup') ?? '');
  for (const relative of candidatePaths(own, deps.uid)) {
    const path = relative === '/' ? mount : join(mount, relative);
    const controllers = deps.readText(join(path, 'cgroup.controllers'));
    if (controllers === null || !deps.isOwnWritableDir(path, deps.uid)) continue;
    // The kernel lets a process move itself only with write access to the cgroup.procs of the
    // common ancestor of where it is and where it goes (a login shell's session scope cannot
    // enter user@UID.service: their common ancestor is root's).
    const ancestor = commonAncestor(own, relative);
    if (!deps.isOwnWritableDir(ancestor === '/' ? mount : join(mount, ancestor), deps.uid)) {
      unreachable ??= `${path} is ours, but moving there from ${own} needs write access to ${ancestor} (start treewarden inside it, e.g. systemd-run --user --scope)`;
      continue;
    }
    if (!hasKill(deps, path)) {
      writableWithoutKill ??= path;
      continue;
    }
    return { available: true, path, controllers: controllers.trim().split(/\s+/).filter(Boolean) };
  }
  const noKill =
    writableWithoutKill === null ? '' : `; ${writableWithoutKill} is writable but has no cgroup.kill (kernel < 5.14)`;
  return {
    available: false,
    reason: `no cgroup v2 directory under ${mount} is owned and writable by uid ${deps.uid}${noKill}${unreachable === null ? '' : `; ${unreachable}`}`,
  };
}

/** `cgroup: true` where the probe found nothing: refused before launch with what it found. */
export function requireCgroup(probe: () => CgroupProbe = probeCgroup): Extract<CgroupProbe, { available: true }> {
  const found = probe();
  if (found.available) return found;
  throw new RunSpecError(
    `cgroup: no usable cgroup v2 parent here: ${found.reason}; without --cgroup the tree is owned and its limits enforced by polling`,
  );
}
