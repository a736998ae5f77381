/**
 * One observation of agent sessions: read the table, recognise live sessions, fold them into the
 * remembered ones (state dir), judge leaks. `observeAgentsOnce` reads the whole table (the CLI's
 * one-shot commands); the watcher's cheap ticks use `readFocusedTable` instead.
 */

import { LINUX_PORT_SOURCES, type LinuxPortSources, readLinuxPortMap } from '../../ports/linux-ports.js';
import { ancestorPids } from '../../signal/guards.js';
import { readLiveStartTime } from '../../signal/start-time.js';
import { readControllingTty } from '../../table/controlling-tty.js';
import { readProcTable } from '../../table/linux-proc.js';
import { identityKey, type ProcessTable } from '../../table/types.js';
import { type AgentLeak, findAgentLeaks } from '../leaks/find-leaks.js';
import { isRootGone } from '../leaks/leak-judge.js';
import { SUBREAPER_COMMANDS } from '../leaks/leak-reasons.js';
import { implausibleWindow, linuxWindowFacts } from '../leaks/session-window.js';
import { createMarkerReader, type MarkerReader } from '../read/environ.js';
import { roleOf } from '../rules/match.js';
import type { AgentRules, RulesProblem } from '../rules/rules.js';
import { collectMarkers, type LiveSession, type RecogniseInput, recogniseSessions } from '../sessions/recognise.js';
import { type RememberResult, rememberObserved } from '../sessions/remember.js';
import {
  forgetSession,
  pruneSessions,
  readSessions,
  type StoreProblem,
  writeSession,
} from '../sessions/session-store.js';
import type { StoredSession } from '../sessions/store-schema.js';

export interface AgentObservation {
  readonly table: ProcessTable;
  readonly live: readonly LiveSession[];
  readonly sessions: readonly StoredSession[];
  readonly leaks: readonly AgentLeak[];
  readonly started: readonly StoredSession[];
  readonly ended: readonly StoredSession[];
  readonly problems: readonly (RulesProblem | StoreProblem)[];
}

export interface ObserveContext {
  readonly stateRoot: string;
  readonly rules: AgentRules;
  readonly rulesProblems?: readonly RulesProblem[];
  readonly readMarkers: MarkerReader;
  /** Pids never judged (the observer's own tree); its own pid and ancestors are always added. */
  readonly exclude?: ReadonlySet<number>;
  /** Which of these pids hold a listening socket (dev-server role); default: the Linux port reader. */
  readonly readListeningPids?: (pids: readonly number[]) => ReadonlySet<number>;
  readonly uid?: number;
  readonly now?: number;
}

export function markerReaderFor(rules: AgentRules): MarkerReader {
  return createMarkerReader(new Set(rules.markersByName.keys()));
}

export function currentUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

/** `systemd --user` style adopters in a table (pid 1 is always one). */
export function findSubreapers(table: ProcessTable, uid: number | undefined): Set<number> {
  const found = new Set<number>();
  for (const entry of table.entries.values()) {
    if (entry.pid > 1 && SUBREAPER_COMMANDS.has(entry.command) && (uid === undefined || entry.uid === uid))
      found.add(entry.pid);
  }
  return found;
}

/** Linux: the members' listening sockets; elsewhere none (the role falls back to argv). */
export function readListeningPidsLinux(
  pids: readonly number[],
  sources: LinuxPortSources = LINUX_PORT_SOURCES,
): ReadonlySet<number> {
  if (process.platform !== 'linux' || pids.length === 0) return new Set();
  return new Set(readLinuxPortMap(pids, sources)?.listeners.map((listener) => listener.pid) ?? []);
}

/** Recognition, then a second pass once the members' sockets are known (sockets are read for members only). */
function recogniseWithPorts(
  context: ObserveContext,
  recognition: RecogniseInput,
  markers: ReturnType<typeof collectMarkers>,
): LiveSession[] {
  const first = recogniseSessions(recognition, markers);
  const memberPids = first.flatMap((session) => session.members.map((member) => member.entry.pid));
  const listeningPids = (context.readListeningPids ?? readListeningPidsLinux)(memberPids);
  return listeningPids.size === 0 ? first : recogniseSessions({ ...recognition, listeningPids }, markers);
}

/**
 * A live session whose root a hook already recorded is that record's session: recognition takes
 * the hook's id (the agent's own session id), so one session is one record, not two.
 */
export function adoptHookIds(live: readonly LiveSession[], remembered: readonly StoredSession[]): LiveSession[] {
  const byRoot = new Map<string, string>();
  const byKey = new Map<string, string>();
  for (const session of remembered) {
    if (session.hook === undefined || session.endedAtMs !== null) continue;
    byRoot.set(identityKey(session.root), session.id);
    for (const key of session.sessionKeys) if (key.includes(':session:')) byKey.set(key, session.id);
  }
  const taken = new Set<string>();
  const adopted = live.map((session) => {
    // A session daemon runs no session of its own: a hook record naming it (an older Treewarden
    // took the daemon for the agent) belongs to the background session that carries its id.
    if (session.family?.kind === 'daemon') return session;
    // The hook names the agent process that ran it: the root, or the root's relaunched process
    // (Gemini's child, Codex's vendor binary), which is the same session.
    const agents = [session.root, ...session.members.filter((m) => m.role === 'agent').map((m) => m.entry)];
    const id = agents.map((entry) => byRoot.get(identityKey(entry))).find((found) => found !== undefined);
    if (id !== undefined) taken.add(id);
    return id === undefined ? session : { ...session, id };
  });
  // A daemon's background session is also joined by the session id its children carry
  // (CLAUDE_CODE_SESSION_ID): a hook record whose root was read elsewhere (an older Treewarden
  // took the daemon for the agent) is still this session, not a second, memberless one.
  return adopted.map((session) => {
    if (session.family?.kind !== 'background' || taken.has(session.id)) return session;
    const ids = new Set(session.sessionKeys.flatMap((key) => byKey.get(key) ?? []));
    const [id] = [...ids];
    if (ids.size !== 1 || id === undefined || taken.has(id)) return session;
    taken.add(id);
    return { ...session, id };
  });
}

/**
 * A live session whose root was remembered as another session's relaunched agent process, whose
 * root (the launcher) is gone, is that session still: the agent kept working after its launcher
 * died, so it keeps the session's id (rememberObserved moves the record's root to it).
 */
export function adoptRelaunched(live: readonly LiveSession[], remembered: readonly StoredSession[]): LiveSession[] {
  const byAgentMember = new Map<string, string>();
  for (const session of remembered) {
    if (session.endedAtMs !== null) continue;
    for (const member of session.members)
      if (member.role === 'agent') byAgentMember.set(identityKey(member), session.id);
  }
  const taken = new Set(live.map((session) => session.id));
  return live.map((session) => {
    const id = byAgentMember.get(identityKey(session.root));
    if (id === undefined || taken.has(id)) return session;
    taken.add(id);
    return { ...session, id };
  });
}

/**
 * Judges `table` against `remembered` and writes what changed. `full`: a whole-machine table (else
 * a focused one). `readPorts`: read the members' listening sockets (default: on full tables).
 */
export function observeTable(
  context: ObserveContext,
  table: ProcessTable,
  remembered: readonly StoredSession[],
  storeProblems: readonly StoreProblem[],
  full: boolean,
  subreapers: ReadonlySet<number>,
  { readPorts = full }: { readonly readPorts?: boolean } = {},
): AgentObservation {
  const now = context.now ?? Date.now();
  const uid = context.uid ?? currentUid();
  const hookRoots = new Set(
    remembered.filter((s) => s.hook !== undefined && s.endedAtMs === null).map((s) => identityKey(s.root)),
  );
  const rememberedMembers = new Map<string, string>();
  for (const session of remembered)
    for (const member of session.members)
      if (member.role === 'tmux-server') rememberedMembers.set(identityKey(member), identityKey(session.root));
  const recognition = {
    table,
    rules: context.rules,
    readMarkers: context.readMarkers,
    uid,
    hookRoots,
    rememberedMembers,
  };
  const markers = collectMarkers(recognition);
  // A focused table holds every remembered live tree, so recognition is valid on it too; sockets
  // (the dev-server role) are read only when asked, and a role once seen is kept meanwhile.
  const recognised = readPorts
    ? recogniseWithPorts(context, recognition, markers)
    : recogniseSessions(recognition, markers);
  const live = adoptHookIds(adoptRelaunched(recognised, remembered), remembered);
  const result: RememberResult = rememberObserved(remembered, live, table, now);
  // As written: another observer's members and ends folded in, so this tick judges with them too.
  const written = new Map(result.changed.map((record) => [record.id, writeSession(context.stateRoot, record)]));
  for (const id of result.forgotten) forgetSession(context.stateRoot, id);
  const remembering = result.sessions.map((session) => written.get(session.id) ?? session);
  const exclude = new Set([process.pid, ...ancestorPids(), ...(context.exclude ?? [])]);
  // A partial table lacks most processes: ask the kernel whether a leader lives before saying it is gone.
  const isPresent = full ? undefined : (pid: number) => table.entries.has(pid) || readLiveStartTime(pid) !== null;
  // A dead session's record is evidence only with a window a real session could have had.
  const facts = linuxWindowFacts(now);
  const windowProblems: StoreProblem[] = [];
  const judged = remembering.filter((session) => {
    if (!isRootGone(table, session)) return true;
    const why = implausibleWindow(session, facts);
    if (why !== null)
      windowProblems.push({
        file: `${session.id}.json`,
        message: `not acted on: session record ${session.id}: ${why}`,
      });
    return why === null;
  });
  const leaks = findAgentLeaks({
    table,
    live,
    remembered: judged,
    markers,
    exclude,
    subreapers,
    uid,
    now,
    ttyOf: readControllingTty,
    roleOfArgv: (entry) => roleOf(entry, context.rules, { subagent: false, listening: false }),
    ruleOrder: context.rules.agents.map((rule) => rule.id),
    daemonLingerMs: (agent) => context.rules.agents.find((rule) => rule.id === agent)?.daemon?.lingerMs ?? 0,
    ...(isPresent !== undefined ? { isPresent } : {}),
  });
  const leaking = new Set(leaks.map((leak) => leak.sessionId));
  const sessions = pruneSessions(context.stateRoot, remembering, now, (session) => leaking.has(session.id));
  return {
    table,
    live,
    sessions,
    leaks,
    started: result.started,
    ended: result.ended,
    problems: [...(context.rulesProblems ?? []), ...storeProblems, ...windowProblems],
  };
}

/** A full observation (Linux): the CLI's `sessions` and `orphans`. */
export function observeAgentsOnce(context: ObserveContext, table: ProcessTable = readProcTable()): AgentObservation {
  const store = readSessions(context.stateRoot);
  const uid = context.uid ?? currentUid();
  return observeTable(context, table, store.sessions, store.problems, true, findSubreapers(table, uid));
}
