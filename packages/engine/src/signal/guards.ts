/**
 * Targets Treewarden never signals: pid 0 and 1, negative pids, itself, its own process group,
 * its ancestors (signalling them would end the supervisor from below), and processes of other
 * users (refused up front with an EPERM message rather than left to the kernel, so root does
 * not end another user's work either).
 */
import { statSync } from 'node:fs';
import { readStatLite } from './proc-stat.js';

export type RefusalCode = 'PROTECTED' | 'EPERM';

export class SignalRefusedError extends Error {
  readonly code: RefusalCode;
  constructor(code: RefusalCode, message: string) {
    super(message);
    this.name = 'SignalRefusedError';
    this.code = code;
  }
}

/** Bound on the ancestor walk (a ppid cycle would be a kernel bug, but never loop forever). */
const MAX_ANCESTOR_DEPTH = 256;

/** This process's group; on non-Linux the group is unknown here and the caller passes it. */
export function ownProcessGroup(): number | null {
  return process.platform === 'linux' ? (readStatLite(process.pid)?.pgid ?? null) : null;
}

/**
 * How long the ancestor set and own group are reused. Safe to cache: the ancestor set only ever
 * shrinks (a dead ancestor's place is taken by one already above it), so a stale set refuses
 * more, never less; and this process does not change its own group.
 */
export const GUARD_CACHE_MS = 1000;
let cachedAt = Number.NEGATIVE_INFINITY;
let cachedAncestors = new Map<number, number>();
let cachedAncestorPids = new Set<number>();
let cachedGroup: number | null = null;

function refreshGuardCache(): void {
  if (performance.now() - cachedAt < GUARD_CACHE_MS) return;
  cachedAncestors = readAncestors();
  cachedAncestorPids = new Set(cachedAncestors.keys());
  cachedGroup = ownProcessGroup();
  cachedAt = performance.now();
}

/** Pids from our parent up to (excluding) pid 1 (cached for GUARD_CACHE_MS). */
export function ancestorPids(): Set<number> {
  refreshGuardCache();
  return cachedAncestorPids;
}

/** The ancestor in process group `pgid` (cached like `ancestorPids`), or undefined. */
function ancestorInGroup(pgid: number): number | undefined {
  refreshGuardCache();
  for (const [pid, group] of cachedAncestors) if (group === pgid) return pid;
  return undefined;
}

/** Ancestor pid → its process group (-1 where unknown: off Linux, or unreadable). */
function readAncestors(): Map<number, number> {
  const ancestors = new Map<number, number>();
  if (process.platform !== 'linux') {
    ancestors.set(process.ppid, -1);
    return ancestors;
  }
  let pid = process.ppid;
  for (let depth = 0; pid > 1 && depth < MAX_ANCESTOR_DEPTH; depth += 1) {
    const stat = readStatLite(pid);
    ancestors.set(pid, stat?.pgid ?? -1);
    pid = stat?.ppid ?? 0;
  }
  return ancestors;
}

function refuseProtected(message: string): never {
  throw new SignalRefusedError('PROTECTED', message);
}

export function assertSignallablePid(pid: number): void {
  if (!Number.isInteger(pid) || pid <= 1)
    refuseProtected(
      `refusing to signal pid ${pid}: pids 0, 1 and negative pids are never signalled (pass a real worker pid)`,
    );
  if (pid === process.pid) refuseProtected(`refusing to signal pid ${pid}: it is this Treewarden process itself`);
  if (ancestorPids().has(pid))
    refuseProtected(`refusing to signal pid ${pid}: it is an ancestor of this Treewarden process`);
}

export function assertSignallableGroup(pgid: number): void {
  if (!Number.isInteger(pgid) || pgid <= 1)
    refuseProtected(`refusing to signal process group ${pgid}: groups 0 and 1 and negative ids are never signalled`);
  refreshGuardCache();
  if (pgid === cachedGroup || pgid === process.pid)
    refuseProtected(`refusing to signal process group ${pgid}: it is Treewarden's own process group`);
  if (ancestorPids().has(pgid))
    refuseProtected(`refusing to signal process group ${pgid}: it is led by an ancestor of this Treewarden process`);
  // A group led by someone else can still hold an ancestor (a shell whose leader exited, one that
  // joined the group): killpg would stop or end the supervisor's own line from below.
  const ancestor = ancestorInGroup(pgid);
  if (ancestor !== undefined)
    refuseProtected(
      `refusing to signal process group ${pgid}: it holds pid ${ancestor}, an ancestor of this Treewarden process`,
    );
}

/** Refuses processes of another user (Linux: owner of /proc/PID). Returns quietly when the pid is gone. */
export function assertSameUser(pid: number): void {
  if (process.platform !== 'linux' || typeof process.getuid !== 'function') return;
  let owner: number;
  try {
    owner = statSync(`/proc/${pid}`).uid;
  } catch {
    return;
  }
  const self = process.getuid();
  if (owner !== self) throw new SignalRefusedError('EPERM', otherUserMessage(pid, owner, self));
}

/** The one wording of the other-user refusal (the signal guard and the kill's first look share it). */
export function otherUserMessage(pid: number, owner: number, self: number): string {
  return `EPERM: pid ${pid} belongs to uid ${owner}, not to this user (uid ${self}); Treewarden only signals its own user's processes`;
}
