/**
 * Leak judgement with evidence. A session whose root is gone leaks its surviving members: those
 * remembered by identity while it lived, their new descendants, and processes whose markers name
 * it. Trees that leaked before any observer ran are found from markers alone: a marked process
 * whose marked ancestry ends at pid 1 or a subreaper, outside every live session. Never reported:
 * pid ≤ 1, protected commands, other users' processes, the caller's own tree (`exclude`), anything
 * of a live session, anything without agent evidence. Pure over its inputs.
 */
import { indexChildren } from '../table/trees.js';
import type { ProcessEntry, ProcessTable } from '../table/types.js';
import { contextReasons, isAdopter, PROTECTED_COMMANDS } from './leak-reasons.js';
import { describeHit, type MarkerHit, sessionKeysOf } from './match.js';
import { type LiveSession, MAX_ANCESTRY_DEPTH } from './recognise.js';
import type { MemberRole } from './rule-schema.js';
import type { StoredSession } from './store-schema.js';

export interface LeakedProcess {
  readonly entry: ProcessEntry;
  readonly role: MemberRole;
  readonly reasons: readonly string[];
}

export interface AgentLeak {
  readonly sessionId: string;
  readonly agent: string;
  /** The dead root, when the session was remembered; null for a marker-only find. */
  readonly root: { readonly pid: number; readonly startTime: string } | null;
  readonly why: string;
  readonly processes: readonly LeakedProcess[];
}

export interface LeakInput {
  readonly table: ProcessTable;
  readonly live: readonly LiveSession[];
  readonly remembered: readonly StoredSession[];
  /** Marker hits per pid (from `collectMarkers`), same table. */
  readonly markers: ReadonlyMap<number, readonly MarkerHit[]>;
  /** The observer's own pid and ancestors, and anything else the caller protects. */
  readonly exclude: ReadonlySet<number>;
  readonly subreapers?: ReadonlySet<number>;
  readonly uid?: number;
  readonly now: number;
  /** Whether a group/session leader lives; default: present in `table` (pass a live check for a partial table). */
  readonly isPresent?: (pid: number) => boolean;
  /** tty_nr of a process (0: none), null when unknown; read only for leaked processes. */
  readonly ttyOf?: (pid: number) => number | null;
}

interface Judge {
  readonly input: LeakInput;
  readonly protectedPids: ReadonlySet<number>;
  readonly liveKeys: ReadonlySet<string>;
  readonly claimed: Set<number>;
  readonly children: ReadonlyMap<number, readonly number[]>;
  readonly subreapers: ReadonlySet<number>;
}

function buildJudge(input: LeakInput): Judge {
  const protectedPids = new Set(input.exclude);
  const liveKeys = new Set<string>();
  for (const session of input.remembered) {
    // A live session's remembered members stay its own after they are reparented.
    if (!isRootGone(input.table, session)) for (const member of session.members) protectedPids.add(member.pid);
  }
  for (const session of input.live) {
    protectedPids.add(session.root.pid);
    for (const member of session.members) protectedPids.add(member.entry.pid);
    for (const key of session.sessionKeys) liveKeys.add(key);
  }
  return {
    input,
    protectedPids,
    liveKeys,
    claimed: new Set(),
    children: indexChildren(input.table.entries),
    subreapers: input.subreapers ?? new Set(),
  };
}

function isEligible(judge: Judge, entry: ProcessEntry | undefined): entry is ProcessEntry {
  if (entry === undefined || entry.pid <= 1 || entry.state === 'Z' || entry.state === 'X') return false;
  if (judge.protectedPids.has(entry.pid) || judge.claimed.has(entry.pid)) return false;
  if (PROTECTED_COMMANDS.has(entry.command)) return false;
  if (judge.input.uid !== undefined && entry.uid !== judge.input.uid) return false;
  // A marker naming a live session makes it that session's, wherever it sits.
  return !sessionKeysOf(judge.input.markers.get(entry.pid) ?? []).some((key) => judge.liveKeys.has(key));
}

function leaked(judge: Judge, entry: ProcessEntry, role: MemberRole, evidence: string[]): LeakedProcess {
  judge.claimed.add(entry.pid);
  const context = contextReasons(
    entry,
    judge.input.table,
    judge.subreapers,
    judge.input.now,
    judge.input.isPresent,
    judge.input.ttyOf,
  );
  return { entry, role, reasons: [...evidence, ...context] };
}

/** New descendants of leaked processes (spawned after the last observation) leak with them. */
function addDescendants(judge: Judge, found: LeakedProcess[]): void {
  const stack = found.map((process) => process.entry.pid);
  while (stack.length > 0) {
    const parent = stack.pop() as number;
    for (const pid of judge.children.get(parent) ?? []) {
      const entry = judge.input.table.entries.get(pid);
      if (!isEligible(judge, entry)) continue;
      found.push(leaked(judge, entry, 'other', [`descendant of leaked ${parent}`]));
      stack.push(pid);
    }
  }
}

function isRootGone(table: ProcessTable, session: StoredSession): boolean {
  const root = table.entries.get(session.root.pid);
  return root === undefined || root.startTime !== session.root.startTime || root.state === 'Z' || root.state === 'X';
}

function rememberedLeak(judge: Judge, session: StoredSession): AgentLeak | null {
  const { table, markers } = judge.input;
  const rootText = `${session.agent} root ${session.root.pid} (start ${session.root.startTime})`;
  const found: LeakedProcess[] = [];
  for (const member of session.members) {
    const entry = table.entries.get(member.pid);
    if (!isEligible(judge, entry) || entry.startTime !== member.startTime) continue;
    found.push(
      leaked(judge, entry, member.role, [`remembered as ${member.role} of session ${session.id}; ${rootText} is gone`]),
    );
  }
  const keys = new Set(session.sessionKeys);
  for (const [pid, hits] of markers) {
    const named = hits.find((hit) => sessionKeysOf([hit]).some((key) => keys.has(key)));
    const entry = table.entries.get(pid);
    if (named === undefined || !isEligible(judge, entry)) continue;
    found.push(
      leaked(judge, entry, 'other', [`marker ${describeHit(named)} names session ${session.id}, whose root is gone`]),
    );
  }
  addDescendants(judge, found);
  if (found.length === 0) return null;
  return {
    sessionId: session.id,
    agent: session.agent,
    root: session.root,
    why: `${rootText} is gone`,
    processes: found,
  };
}

/** The top of a marked process's marked ancestry, when that top was reparented to an adopter. */
function orphanedTop(judge: Judge, entry: ProcessEntry, agent: string): ProcessEntry | null {
  const { table, markers } = judge.input;
  let top = entry;
  for (let depth = 0; depth < MAX_ANCESTRY_DEPTH; depth += 1) {
    if (isAdopter(table, top.ppid, judge.subreapers)) return top;
    const parent = table.entries.get(top.ppid);
    // A live parent without this agent's markers holds the process (or is a live session): not orphaned.
    if (parent === undefined || !(markers.get(parent.pid) ?? []).some((hit) => hit.agent === agent)) return null;
    if (judge.protectedPids.has(parent.pid)) return null;
    top = parent;
  }
  return null;
}

function markerOnlyLeaks(judge: Judge): AgentLeak[] {
  const groups = new Map<string, AgentLeak & { processes: LeakedProcess[] }>();
  for (const [pid, hits] of judge.input.markers) {
    const entry = judge.input.table.entries.get(pid);
    const hit = hits[0];
    if (hit === undefined || !isEligible(judge, entry)) continue;
    const top = orphanedTop(judge, entry, hit.agent);
    if (top === null || !isEligible(judge, top) || isAmbiguous(judge, top, hit.agent)) continue;
    const sessionId = `${hit.agent}-orphan-${top.pid}-${top.startTime}`;
    const found: LeakedProcess[] = [leaked(judge, top, 'other', topEvidence(judge, top))];
    addDescendants(judge, found);
    groups.set(sessionId, {
      sessionId,
      agent: hit.agent,
      root: null,
      why: `${hit.agent} markers on a tree reparented to an adopter, outside every live session`,
      processes: found,
    });
  }
  return [...groups.values()];
}

/**
 * A marked orphan that names no session, while a session of the same agent that started before it
 * is live, may be that session's own daemon: no evidence says otherwise, so it is not reported.
 */
function isAmbiguous(judge: Judge, top: ProcessEntry, agent: string): boolean {
  if (sessionKeysOf(judge.input.markers.get(top.pid) ?? []).length > 0) return false;
  const { live, remembered, table } = judge.input;
  if (live.some((session) => session.agent === agent && session.root.startedAtMs <= top.startedAtMs)) return true;
  return remembered.some(
    (session) => session.agent === agent && !isRootGone(table, session) && session.startedAtMs <= top.startedAtMs,
  );
}

function topEvidence(judge: Judge, top: ProcessEntry): string[] {
  const hits = judge.input.markers.get(top.pid) ?? [];
  return [`${hits[0]?.agent ?? 'agent'} marker ${hits.map(describeHit).join(', ')}; no live session claims it`];
}

export function findAgentLeaks(input: LeakInput): AgentLeak[] {
  const judge = buildJudge(input);
  const leaks: AgentLeak[] = [];
  for (const session of input.remembered) {
    if (!isRootGone(input.table, session)) continue;
    const leak = rememberedLeak(judge, session);
    if (leak !== null) leaks.push(leak);
  }
  return [...leaks, ...markerOnlyLeaks(judge)];
}
