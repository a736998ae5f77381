/**
 * What one live session holds for the alert judgement: its members now (recognised this tick, plus
 * remembered ones still alive by identity: a member keeps its place after it is reparented), never
 * the agent root, its ancestors, the observer's own tree, a zombie or another user's process.
 */
import { readProcEntry } from '../../table/linux-proc.js';
import { isZombie, type ProcessEntry, type ProcessTable } from '../../table/types.js';
import type { MemberRole } from '../rules/rule-schema.js';
import type { LiveSession } from '../sessions/recognise.js';
import { MAX_ANCESTRY_DEPTH } from '../sessions/recognise.js';
import type { StoredSession } from '../sessions/store-schema.js';

export interface JudgedMember {
  readonly entry: ProcessEntry;
  readonly role: MemberRole;
}

export interface JudgedSession {
  readonly id: string;
  readonly agent: string;
  readonly root: ProcessEntry;
  readonly members: readonly JudgedMember[];
  readonly byPid: ReadonlyMap<number, JudgedMember>;
  /** Children among the members (and of the root), by parent pid. */
  readonly children: ReadonlyMap<number, readonly number[]>;
}

/** The root's ancestors up to pid 1: from the table, else read live (a focused table lacks them). */
export function rootAncestors(root: ProcessEntry, table: ProcessTable): Set<number> {
  const found = new Set<number>();
  let pid = root.ppid;
  for (let depth = 0; pid > 1 && depth < MAX_ANCESTRY_DEPTH && !found.has(pid); depth += 1) {
    found.add(pid);
    pid = (table.entries.get(pid) ?? readProcEntry(pid))?.ppid ?? 0;
  }
  return found;
}

function alive(table: ProcessTable, pid: number, startTime: string): ProcessEntry | null {
  const entry = table.entries.get(pid);
  return entry !== undefined && entry.startTime === startTime && !isZombie(entry) ? entry : null;
}

export function judgedSession(
  live: LiveSession,
  remembered: StoredSession | undefined,
  table: ProcessTable,
  isProtected: (pid: number) => boolean,
  uid: number | undefined,
): JudgedSession {
  const byPid = new Map<number, JudgedMember>();
  const admit = (entry: ProcessEntry, role: MemberRole) => {
    if (entry.pid <= 1 || entry.pid === live.root.pid || isProtected(entry.pid) || isZombie(entry)) return;
    // The agent's own relaunched process is the agent, like the root: never an alert's target.
    if (role === 'agent') return;
    if (uid !== undefined && entry.uid !== uid) return;
    // The first sight of a pid wins (this tick's recognition before the remembered record).
    if (!byPid.has(entry.pid)) byPid.set(entry.pid, { entry, role });
  };
  for (const member of live.members) admit(member.entry, member.role);
  for (const member of remembered?.members ?? []) {
    if (byPid.has(member.pid)) continue;
    const entry = alive(table, member.pid, member.startTime);
    if (entry !== null) admit(entry, member.role);
  }
  const children = new Map<number, number[]>();
  for (const { entry } of byPid.values()) {
    const siblings = children.get(entry.ppid);
    if (siblings === undefined) children.set(entry.ppid, [entry.pid]);
    else siblings.push(entry.pid);
  }
  return { id: live.id, agent: live.agent, root: live.root, members: [...byPid.values()], byPid, children };
}

/** A member and its member descendants (a set: a wrapper and its server, a job and its children). */
export function setOf(session: JudgedSession, pid: number): ProcessEntry[] {
  const found: ProcessEntry[] = [];
  const seen = new Set<number>();
  const stack = [pid];
  while (stack.length > 0) {
    const next = stack.pop() as number;
    const member = session.byPid.get(next);
    if (member === undefined || seen.has(next)) continue;
    seen.add(next);
    found.push(member.entry);
    stack.push(...(session.children.get(next) ?? []));
  }
  return found;
}

/** Whether `pid`'s parent chain reaches `ancestor` through members only. */
export function descendsFrom(session: JudgedSession, pid: number, ancestors: ReadonlySet<number>): boolean {
  let current = session.byPid.get(pid)?.entry.ppid ?? 0;
  for (let depth = 0; current > 1 && depth < MAX_ANCESTRY_DEPTH; depth += 1) {
    if (ancestors.has(current)) return true;
    current = session.byPid.get(current)?.entry.ppid ?? 0;
  }
  return false;
}

const DECIMAL = /^[1-9]\d*$/;

/** Oldest first: the kernel's start time (clock ticks on Linux), then pid (a tick can hold two starts). */
export function byAge(a: ProcessEntry, b: ProcessEntry): number {
  // Decimal tick counts without leading zeros compare by length, then digit by digit (no BigInt per comparison).
  if (DECIMAL.test(a.startTime) && DECIMAL.test(b.startTime) && a.startTime !== b.startTime)
    return a.startTime.length - b.startTime.length || (a.startTime < b.startTime ? -1 : 1);
  return a.startedAtMs - b.startedAtMs || a.pid - b.pid;
}

export function commandOf(entry: ProcessEntry, max = 160): string {
  const line = entry.args.length > 0 ? entry.args.join(' ') : `[${entry.command}]`;
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
