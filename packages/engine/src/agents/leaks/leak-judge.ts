/**
 * The shared core of leak judgement: what a leak looks like, which processes may be judged at all
 * (never pid ≤ 1, protected commands, other users', the caller's own tree, a live session's
 * members or a process whose marker names a live session), and how a leaked process gets its
 * circumstantial reasons. Pure over its inputs.
 */
import { indexChildren } from '../../table/trees.js';
import type { ProcessEntry, ProcessTable } from '../../table/types.js';
import { type MarkerHit, sessionKeysOf } from '../rules/match.js';
import type { MemberRole } from '../rules/rule-schema.js';
import type { LiveSession } from '../sessions/recognise.js';
import { isSessionOver } from '../sessions/remember.js';
import type { StoredSession } from '../sessions/store-schema.js';
import { contextReasons, PROTECTED_COMMANDS } from './leak-reasons.js';

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
  /** A process's role from its argv (the rules' role patterns); default: every such find is `other`. */
  readonly roleOfArgv?: (entry: ProcessEntry) => MemberRole;
  /** Clients attached to a tmux server (null: unknown); default: counted from its open sockets. */
  readonly tmuxClientsOf?: (entry: ProcessEntry) => number | null;
  /** Agent ids in rule order: a marker-only find's agent on a tie (match.ts `primaryAgent`). */
  readonly ruleOrder?: readonly string[];
  /** How long an agent's session daemon's workers may outlive it (rule `daemon.lingerSeconds`); default 0. */
  readonly daemonLingerMs?: (agent: string) => number;
}

/** The role of a leaked process nobody remembered: from its argv, `other` when none says more. */
export function roleFromArgv(judge: Judge, entry: ProcessEntry): MemberRole {
  return judge.input.roleOfArgv?.(entry) ?? 'other';
}

export interface Judge {
  readonly input: LeakInput;
  readonly protectedPids: ReadonlySet<number>;
  readonly liveKeys: ReadonlySet<string>;
  readonly claimed: Set<number>;
  readonly children: ReadonlyMap<number, readonly number[]>;
  readonly subreapers: ReadonlySet<number>;
}

/**
 * A process's start comes from the boot-time clock (`btime`, whole seconds, plus ticks); a
 * session's end from the wall clock when it was seen over. This much slack keeps a member that
 * started in the session's last instant from being refused for clock rounding alone.
 */
export const END_CLOCK_SLACK_MS = 2000;

/**
 * The one check every recorded member and every id carrier passes before it can be a kill target:
 * a member of a session started neither before the session's root did (`startedAtMs`, the same
 * boot-time clock as the process's own start) nor after the session ended. A planted or stale
 * record naming a process that started later, or an id carrier of a resumed run judged against
 * the earlier run's record, fails it. An unknown start (0) proves nothing and fails too.
 */
export function startedWithinSession(entry: ProcessEntry, session: StoredSession): boolean {
  if (entry.startedAtMs <= 0 || entry.startedAtMs < session.startedAtMs) return false;
  return session.endedAtMs === null || entry.startedAtMs <= session.endedAtMs + END_CLOCK_SLACK_MS;
}

export function buildJudge(input: LeakInput): Judge {
  const protectedPids = new Set(input.exclude);
  const liveKeys = new Set<string>();
  for (const session of input.remembered) {
    if (isRootGone(input.table, session)) continue;
    // A live session's remembered members stay its own after they are reparented, and a marker
    // naming it (a hook-recorded session whose root no argv rule knows) keeps its carriers its own.
    for (const member of session.members) protectedPids.add(member.pid);
    for (const key of session.sessionKeys) liveKeys.add(key);
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

export function isEligible(judge: Judge, entry: ProcessEntry | undefined): entry is ProcessEntry {
  if (entry === undefined || entry.pid <= 1 || entry.state === 'Z' || entry.state === 'X') return false;
  if (judge.protectedPids.has(entry.pid) || judge.claimed.has(entry.pid)) return false;
  if (PROTECTED_COMMANDS.has(entry.command)) return false;
  if (judge.input.uid !== undefined && entry.uid !== judge.input.uid) return false;
  // A marker naming a live session makes it that session's, wherever it sits.
  return !sessionKeysOf(judge.input.markers.get(entry.pid) ?? []).some((key) => judge.liveKeys.has(key));
}

export function leaked(judge: Judge, entry: ProcessEntry, role: MemberRole, evidence: string[]): LeakedProcess {
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
export function addDescendants(judge: Judge, found: LeakedProcess[]): void {
  const stack = found.map((process) => process.entry.pid);
  const roles = new Map(found.map((process) => [process.entry.pid, process.role]));
  while (stack.length > 0) {
    const parent = stack.pop() as number;
    for (const pid of judge.children.get(parent) ?? []) {
      const entry = judge.input.table.entries.get(pid);
      if (!isEligible(judge, entry)) continue;
      // A browser's children are all its own (zygotes, renderers, GPU: argv0 is the browser, and
      // a profile path may say anything), as recognise.ts counts them. Otherwise its own argv
      // first; else a child of an MCP server is part of that server.
      const own = roleFromArgv(judge, entry);
      const above = roles.get(parent);
      const role = above === 'browser' || (own === 'other' && above === 'mcp-server') ? above : own;
      roles.set(pid, role);
      found.push(leaked(judge, entry, role, [`descendant of leaked ${parent}`]));
      stack.push(pid);
    }
  }
}

/** Whether the session is over: its root gone, or (a background session) its daemon gone. */
export function isRootGone(table: ProcessTable, session: StoredSession): boolean {
  return isSessionOver(table, session);
}
