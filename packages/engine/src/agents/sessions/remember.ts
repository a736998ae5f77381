/**
 * Folds what was just observed into the remembered sessions: new sessions are recorded, live ones
 * gain members (a member keeps its place after it is reparented: that is the point), members seen
 * dead in a full table are dropped, and sessions whose root is gone are marked ended. Writes only
 * records that changed.
 */
import { identityKey, type ProcessTable } from '../../table/types.js';
import { type LiveSession, type SessionMember, sessionIdOf } from './recognise.js';
import {
  type HookCleanup,
  type HookInfo,
  MAX_STORED_ARG_CHARS,
  MAX_STORED_ARGS,
  type StoredMember,
  type StoredSession,
} from './store-schema.js';

export interface RememberResult {
  readonly sessions: StoredSession[];
  readonly changed: StoredSession[];
  readonly started: StoredSession[];
  readonly ended: StoredSession[];
  /** Ids of records to forget: an observer's record of a session a hook's record now holds. */
  readonly forgotten: string[];
}

/**
 * The observer's own record of a live session that now carries a hook's id (the hook wrote after
 * an observer first saw the session): the same root, so the same session, kept once.
 */
function observerDuplicate(byId: ReadonlyMap<string, StoredSession>, live: LiveSession): StoredSession | undefined {
  const ownId = sessionIdOf(live.agent, live.root);
  if (ownId === live.id) return undefined;
  const duplicate = byId.get(ownId);
  if (duplicate === undefined || duplicate.hook !== undefined || duplicate.endedAtMs !== null) return undefined;
  return identityKey(duplicate.root) === identityKey(live.root) ? duplicate : undefined;
}

function boundArgs(args: readonly string[]): string[] {
  return args.slice(0, MAX_STORED_ARGS).map((arg) => arg.slice(0, MAX_STORED_ARG_CHARS));
}

function storedMember(member: SessionMember): StoredMember {
  const { entry } = member;
  return {
    pid: entry.pid,
    startTime: entry.startTime,
    ppid: entry.ppid,
    role: member.role,
    args: boundArgs(entry.args),
    via: member.via,
  };
}

function isAlive(table: ProcessTable, pid: number, startTime: string): boolean {
  const entry = table.entries.get(pid);
  return entry !== undefined && entry.startTime === startTime && entry.state !== 'Z' && entry.state !== 'X';
}

/** A session is over when its root is gone, and a background session also when its daemon is. */
export function isSessionOver(table: ProcessTable, session: Pick<StoredSession, 'root' | 'family'>): boolean {
  if (!isAlive(table, session.root.pid, session.root.startTime)) return true;
  const daemon = session.family?.kind === 'background' ? session.family.daemon : undefined;
  return daemon !== undefined && !isAlive(table, daemon.pid, daemon.startTime);
}

function familyOf(live: LiveSession): StoredSession['family'] {
  const family = live.family;
  if (family === undefined) return undefined;
  return { kind: family.kind, daemon: { pid: family.daemon.pid, startTime: family.daemon.startTime } };
}

function mergeMembers(previous: readonly StoredMember[], live: LiveSession, table: ProcessTable): StoredMember[] {
  const merged = new Map<string, StoredMember>();
  for (const member of previous)
    if (isAlive(table, member.pid, member.startTime)) merged.set(identityKey(member), member);
  // Current observation wins for ppid; remembered ones stay even when no longer descendants. A role
  // once told apart is kept over a later `other` (sockets are only read on full scans).
  for (const member of live.members) {
    const current = storedMember(member);
    const before = merged.get(identityKey(member.entry));
    const role = current.role === 'other' && before !== undefined ? before.role : current.role;
    merged.set(identityKey(member.entry), { ...current, role });
  }
  return [...merged.values()];
}

function sameMembers(a: readonly StoredMember[], b: readonly StoredMember[]): boolean {
  if (a.length !== b.length) return false;
  const keys = new Set(a.map((member) => `${identityKey(member)}:${member.role}`));
  return b.every((member) => keys.has(`${identityKey(member)}:${member.role}`));
}

function newRecord(live: LiveSession, now: number): StoredSession {
  return {
    version: 1,
    id: live.id,
    agent: live.agent,
    root: { pid: live.root.pid, startTime: live.root.startTime, args: boundArgs(live.root.args) },
    cwd: live.root.cwd,
    startedAtMs: live.root.startedAtMs > 0 ? live.root.startedAtMs : now,
    lastSeenAtMs: now,
    endedAtMs: null,
    members: live.members.map(storedMember),
    sessionKeys: [...live.sessionKeys].slice(0, 100),
    ...(live.family !== undefined ? { family: familyOf(live) } : {}),
  };
}

/**
 * `table` must hold every remembered live root that is still alive (a full table, or a partial one
 * read for exactly those pids); `live` is what recognition found in it (may be empty on a partial read).
 */
export function rememberObserved(
  remembered: readonly StoredSession[],
  live: readonly LiveSession[],
  table: ProcessTable,
  now: number,
): RememberResult {
  const byId = new Map(remembered.map((session) => [session.id, session]));
  const changed: StoredSession[] = [];
  const started: StoredSession[] = [];
  const ended: StoredSession[] = [];
  const forgotten: string[] = [];
  for (const session of live) {
    let previous = byId.get(session.id);
    const duplicate = observerDuplicate(byId, session);
    if (duplicate !== undefined && previous !== undefined) {
      byId.delete(duplicate.id);
      forgotten.push(duplicate.id);
      previous = {
        ...previous,
        members: [...duplicate.members, ...previous.members],
        sessionKeys: [...new Set([...previous.sessionKeys, ...duplicate.sessionKeys])].slice(0, 100),
        startedAtMs: Math.min(previous.startedAtMs, duplicate.startedAtMs),
      };
    }
    if (previous === undefined) {
      const record = newRecord(session, now);
      byId.set(record.id, record);
      changed.push(record);
      started.push(record);
      continue;
    }
    const members = mergeMembers(previous.members, session, table);
    const keys = [...new Set([...previous.sessionKeys, ...session.sessionKeys])].slice(0, 100);
    // The launcher died and its relaunched agent process carries on (observe.ts adoptRelaunched):
    // the record's root moves to it. A live recorded root is never replaced.
    // A background session's root is the worker running it, whatever a hook's older record named
    // (an earlier Treewarden took the daemon for the agent).
    const moved =
      (!isAlive(table, previous.root.pid, previous.root.startTime) && previous.endedAtMs === null) ||
      (session.family?.kind === 'background' && identityKey(previous.root) !== identityKey(session.root));
    // A record first written from a read without the root's cwd (a focused read finds a new root
    // under pid 1 by argv, reading no cwd) gains it from the first read that has it.
    const cwd = previous.cwd ?? session.root.cwd;
    // A hook's record of a background session learns its family from recognition; a session a
    // new daemon adopted from a dead one is that daemon's now, and live again.
    const observed = familyOf(session);
    const adopted =
      observed !== undefined &&
      previous.family !== undefined &&
      identityKey(observed.daemon) !== identityKey(previous.family.daemon);
    const family = adopted ? observed : (previous.family ?? observed);
    if (
      duplicate === undefined &&
      !moved &&
      family === previous.family &&
      cwd === previous.cwd &&
      sameMembers(previous.members, members) &&
      keys.length === previous.sessionKeys.length
    )
      continue;
    const root = moved
      ? { pid: session.root.pid, startTime: session.root.startTime, args: boundArgs(session.root.args) }
      : previous.root;
    const record = {
      ...previous,
      root,
      cwd,
      ...(family !== undefined ? { family } : {}),
      ...(adopted ? { endedAtMs: null } : {}),
      // The record's root is no member of its own (a hook's root may be the launcher's relaunched process).
      members: members.filter((m) => identityKey(m) !== identityKey(root)),
      sessionKeys: keys,
      lastSeenAtMs: now,
    };
    byId.set(record.id, record);
    changed.push(record);
  }
  for (const session of byId.values()) {
    if (session.endedAtMs !== null || !isSessionOver(table, session)) continue;
    const record = { ...session, endedAtMs: now };
    byId.set(record.id, record);
    changed.push(record);
    ended.push(record);
  }
  return { sessions: [...byId.values()], changed, started, ended, forgotten };
}

/** The newest SessionStart a record saw (0: never recorded by a hook). */
function openedAt(session: StoredSession): number {
  return session.hook?.openedAtMs ?? 0;
}

/** Hook facts survive an observer's write that predates them; the latest clean-up report is kept. */
function mergeHook(onDisk: StoredSession, ours: StoredSession): HookInfo | undefined {
  const base = openedAt(onDisk) > openedAt(ours) ? onDisk.hook : (ours.hook ?? onDisk.hook);
  if (base === undefined) return undefined;
  const cleanups = [onDisk.hook?.cleanup, ours.hook?.cleanup].filter((c): c is HookCleanup => c !== undefined);
  const cleanup = cleanups.sort((a, b) => b.atMs - a.atMs)[0];
  return { ...base, ...(cleanup !== undefined ? { cleanup } : {}) };
}

/**
 * Two observers may remember the same session (the app, `treewarden watch`, a CLI `sessions`, a
 * hook), each from its own last read of the store: the one writing last must not drop what the
 * other learnt (a member seen only by it, an end). Folds the record on disk into ours before a
 * write: members are the union by identity (ours wins except over a role the other told apart),
 * the end is the earliest seen since the last SessionStart (a resumed session is open again). A
 * record of another root identity under the same id is replaced by the one a hook opened last:
 * a resume's new root is never undone by an observer's older view.
 */
export function mergeSessionRecords(onDisk: StoredSession, ours: StoredSession): StoredSession {
  if (onDisk.root.pid !== ours.root.pid || onDisk.root.startTime !== ours.root.startTime)
    return openedAt(onDisk) > openedAt(ours) ? onDisk : ours;
  const members = new Map<string, StoredMember>(onDisk.members.map((member) => [identityKey(member), member]));
  for (const member of ours.members) {
    const before = members.get(identityKey(member));
    const role = member.role === 'other' && before !== undefined ? before.role : member.role;
    members.set(identityKey(member), { ...member, role });
  }
  const opened = Math.max(openedAt(onDisk), openedAt(ours));
  // A session a new daemon adopted is live again: an end seen under its dead daemon is over.
  const readopted =
    ours.family !== undefined &&
    onDisk.family !== undefined &&
    identityKey(ours.family.daemon) !== identityKey(onDisk.family.daemon);
  const ends = (readopted ? [ours.endedAtMs] : [onDisk.endedAtMs, ours.endedAtMs]).filter(
    (end): end is number => end !== null && end >= opened,
  );
  const hook = mergeHook(onDisk, ours);
  return {
    ...ours,
    members: [...members.values()],
    sessionKeys: [...new Set([...onDisk.sessionKeys, ...ours.sessionKeys])].slice(0, 100),
    startedAtMs: Math.min(onDisk.startedAtMs, ours.startedAtMs),
    lastSeenAtMs: Math.max(onDisk.lastSeenAtMs, ours.lastSeenAtMs),
    endedAtMs: ends.length === 0 ? null : Math.min(...ends),
    ...(hook !== undefined ? { hook } : {}),
    ...((ours.family ?? onDisk.family) !== undefined ? { family: ours.family ?? onDisk.family } : {}),
  };
}
