/**
 * Is there a cgroup v2 subtree this user may manage (a `systemd --user` delegation such as
 * `user.slice/user-UID.slice/user@UID.service`)? With one, a run could get its own child cgroup:
 * exact accounting (memory.max, pids.max) and `cgroup.kill`. Only the probe is built: these
 * machines have no such subtree (a hybrid hierarchy whose cgroup2 mount carries neither the
 * memory nor the pids controller), so placement code could not be tested for real here, and an
 * untested kill path is not one users should trust. Limits are enforced by polling everywhere.
 */
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { RunSpecError } from './spec-error.js';

/** The controllers a run's own cgroup needs: memory.max and pids.max. */
export const REQUIRED_CGROUP_CONTROLLERS = ['memory', 'pids'] as const;

export type CgroupProbe =
  | { readonly available: true; readonly path: string }
  | { readonly available: false; readonly reason: string };

export interface CgroupProbeDeps {
  readonly readText: (path: string) => string | null;
  /** A directory owned by `uid` (or by root when uid is 0) that this process may write. */
  readonly isOwnWritableDir: (path: string, uid: number) => boolean;
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
    const stat = statSync(path);
    accessSync(path, constants.W_OK);
    return stat.isDirectory() && stat.uid === uid;
  } catch {
    return false;
  }
}

const defaultDeps = (): CgroupProbeDeps => ({ readText, isOwnWritableDir, uid: process.getuid?.() ?? -1 });

/** The cgroup2 mount point, from mountinfo (field 5 is the mount point; the fs type follows ` - `). */
export function findCgroup2Mount(mountinfo: string): string | null {
  for (const line of mountinfo.split('\n')) {
    const [before, after] = line.split(' - ');
    if (after?.startsWith('cgroup2 ')) return before?.split(' ')[4] ?? null;
  }
  return null;
}

/** Our own cgroup v2 path (`0::/PATH` in /proc/self/cgroup) and its ancestors, deepest first. */
function candidatePaths(selfCgroup: string, uid: number): string[] {
  const own = /^0::(\/.*)$/m.exec(selfCgroup)?.[1] ?? '/';
  const paths: string[] = [];
  for (let path = own; path !== '/' && path !== ''; path = path.slice(0, path.lastIndexOf('/')) || '/') {
    paths.push(path);
  }
  // A shell in a login session sits in session-N.scope; the delegation is the user manager's.
  paths.push(`/user.slice/user-${uid}.slice/user@${uid}.service`);
  return [...new Set(paths)];
}

export function probeCgroup(deps: CgroupProbeDeps = defaultDeps()): CgroupProbe {
  const mountinfo = deps.readText('/proc/self/mountinfo');
  if (mountinfo === null) return { available: false, reason: 'no /proc/self/mountinfo (cgroups are Linux only)' };
  const mount = findCgroup2Mount(mountinfo);
  if (mount === null) return { available: false, reason: 'no cgroup2 file system is mounted' };
  const missing = new Set<string>();
  for (const relative of candidatePaths(deps.readText('/proc/self/cgroup') ?? '', deps.uid)) {
    const path = join(mount, relative);
    const controllers = deps.readText(join(path, 'cgroup.controllers'));
    if (controllers === null || !deps.isOwnWritableDir(path, deps.uid)) continue;
    const have = new Set(controllers.trim().split(/\s+/));
    const lacking = REQUIRED_CGROUP_CONTROLLERS.filter((name) => !have.has(name));
    if (lacking.length === 0) return { available: true, path };
    for (const name of lacking) missing.add(name);
  }
  const rootControllers = deps.readText(join(mount, 'cgroup.controllers'))?.trim() || 'none';
  const lack = missing.size > 0 ? `; writable ones lack ${[...missing].join(', ')}` : '';
  return {
    available: false,
    reason: `no writable cgroup v2 subtree of ours with memory and pids under ${mount} (its controllers: ${rootControllers})${lack}`,
  };
}

/** `cgroup: true` never reaches launch: refused with why, and what runs instead. */
export function refuseCgroup(hasLimits: boolean, probe: () => CgroupProbe = probeCgroup): never {
  if (!hasLimits) throw new RunSpecError('cgroup needs at least one limit (max-memory, max-procs, max-cpu)');
  const found = probe();
  const why = found.available
    ? `a delegated cgroup v2 subtree exists at ${found.path}, but cgroup placement is not built yet`
    : `no delegated cgroup v2 subtree is available here: ${found.reason}`;
  throw new RunSpecError(`cgroup: ${why}; without --cgroup the limits are enforced by polling the tree`);
}
