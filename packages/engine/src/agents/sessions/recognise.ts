/**
 * Live agent sessions in a process table. Pure over its inputs (table, rules, marker reader,
 * listening pids), so tests feed it any table. A session is an agent root (argv shape, not itself
 * spawned by an agent: no marker of its own agent, no agent root above it) plus its descendants
 * by ancestry and the processes whose markers name it (a session id, the root's pid). An agent
 * with a session daemon (rule `daemon`: Claude Code's `--bg`) gives two more kinds: the daemon's
 * family (the daemon and its idle workers) and each session one of its workers runs (family.ts).
 */
import { isKernelThreadEntry } from '../../table/kernel-threads.js';
import { indexChildren } from '../../table/trees.js';
import { identityKey, isZombie, type ProcessEntry, type ProcessTable } from '../../table/types.js';
import type { MarkerReader } from '../read/environ.js';
import { type MarkerHit, markerHits, roleOf, rootAgentOf, sessionKeysOf, startedBy } from '../rules/match.js';
import type { MemberRole } from '../rules/rule-schema.js';
import type { AgentRules } from '../rules/rules.js';
import { type DaemonFamilies, findDaemonFamilies, isUnderWorker } from './family.js';
import { isTmuxServer, markedServerSession, teamServerEvidence } from './team-servers.js';

/** Bound on ancestor walks (a ppid cycle would be a kernel bug; never loop forever). */
export const MAX_ANCESTRY_DEPTH = 256;

export interface SessionMember {
  readonly entry: ProcessEntry;
  readonly role: MemberRole;
  /**
   * How it was tied to the session: `descendant` of the root, a `marker` naming the session, or
   * `team`: a tmux server the session started (team-servers.ts) and the processes in its panes.
   */
  readonly via: 'descendant' | 'marker' | 'team';
}

export interface LiveSession {
  readonly id: string;
  readonly agent: string;
  readonly root: ProcessEntry;
  readonly members: readonly SessionMember[];
  /** Marker keys seen on members (`agent:session:VALUE`, `agent:root-pid:PID`). */
  readonly sessionKeys: readonly string[];
  /** A session daemon's family (`daemon`), or a session one of its workers runs (`background`). */
  readonly family?: SessionFamily;
}

export interface SessionFamily {
  readonly kind: 'daemon' | 'background';
  /** The daemon (for `daemon`, the root itself): a background session lives only while it does. */
  readonly daemon: ProcessEntry;
}

export interface RecogniseInput {
  readonly table: ProcessTable;
  readonly rules: AgentRules;
  readonly readMarkers: MarkerReader;
  /** Pids holding a listening socket (dev-server role); empty when unknown. */
  readonly listeningPids?: ReadonlySet<number>;
  /** Only this user's processes are considered (undefined: everyone's, e.g. in tests). */
  readonly uid?: number;
  /**
   * Identities (`identityKey`) an open hook record names as its agent process: a daemon's worker
   * among them runs that session even before anything under it carries the session's marker.
   */
  readonly hookRoots?: ReadonlySet<string>;
  /**
   * Remembered members (`identityKey`) → the identity of their session's root: a tmux server an
   * ended session started stays that session's, not a later live session's of the same agent.
   */
  readonly rememberedMembers?: ReadonlyMap<string, string>;
}

export function sessionIdOf(agent: string, root: ProcessEntry): string {
  return `${agent}-${root.pid}-${root.startTime}`;
}

/** Markers of every considered live process (read once per identity by the caller's cached reader). */
export function collectMarkers(input: RecogniseInput): Map<number, MarkerHit[]> {
  const hits = new Map<number, MarkerHit[]>();
  for (const entry of input.table.entries.values()) {
    if (!isConsidered(entry, input.uid)) continue;
    const found = markerHits(input.readMarkers(entry), input.rules);
    if (found.length > 0) hits.set(entry.pid, found);
  }
  return hits;
}

/**
 * Whether a process can be an agent's or carry its markers. Kernel threads cannot: as root (every
 * kthread's uid) their empty environ read as unreadable, was never cached, and was read again on
 * every scan (~120 reads a full scan here).
 */
export function isConsidered(entry: ProcessEntry, uid: number | undefined): boolean {
  return entry.pid > 1 && !isZombie(entry) && (uid === undefined || entry.uid === uid) && !isKernelThreadEntry(entry);
}

function hasAncestorIn(entry: ProcessEntry, table: ProcessTable, set: ReadonlySet<number>): boolean {
  let pid = entry.ppid;
  for (let depth = 0; pid > 1 && depth < MAX_ANCESTRY_DEPTH; depth += 1) {
    if (set.has(pid)) return true;
    pid = table.entries.get(pid)?.ppid ?? 0;
  }
  return false;
}

/**
 * Root candidates: the agent's argv shape, and not started by that agent (none of its `started`
 * markers; a `self` marker, like CODEX_MANAGED_BY_NPM on Codex's vendor binary, is no evidence).
 */
function rootCandidates(
  input: RecogniseInput,
  markers: ReadonlyMap<number, MarkerHit[]>,
  families: DaemonFamilies,
): Map<number, string> {
  const candidates = new Map<number, string>();
  for (const entry of input.table.entries.values()) {
    if (!isConsidered(entry, input.uid)) continue;
    const agent = rootAgentOf(entry, input.rules);
    if (agent === null) continue;
    if (startedBy(markers.get(entry.pid) ?? [], agent.id)) continue;
    // A daemon's tree is its family's (family.ts); a worker orphaned by a dead daemon runs no live session.
    if (families.inFamily.has(entry.pid) || isUnderWorker(entry, input.table, families.workers)) continue;
    candidates.set(entry.pid, agent.id);
  }
  return candidates;
}

/**
 * The agent's own relaunched process: a root candidate whose parent is a root candidate of the
 * same agent (npm's node launcher and Codex's vendor binary, Gemini's relaunch with more heap,
 * Qwen's `--expose-gc` child). A subagent carries its parent agent's `started` markers and is
 * never a candidate, so it is never taken for one.
 */
function isRelaunch(entry: ProcessEntry, candidates: ReadonlyMap<number, string>): boolean {
  const agent = candidates.get(entry.pid);
  return agent !== undefined && candidates.get(entry.ppid) === agent;
}

/** Roots: candidates with no candidate above them (a relaunch's launcher that died leaves it a root). */
function findRoots(input: RecogniseInput, candidates: ReadonlyMap<number, string>): Map<number, string> {
  // A root below another root is that session's subagent, not a session of its own.
  const roots = new Map<number, string>();
  const pids = new Set(candidates.keys());
  for (const [pid, agent] of candidates) {
    const entry = input.table.entries.get(pid) as ProcessEntry;
    if (!hasAncestorIn(entry, input.table, pids)) roots.set(pid, agent);
  }
  return roots;
}

export function recogniseSessions(input: RecogniseInput, markers = collectMarkers(input)): LiveSession[] {
  const children = indexChildren(input.table.entries);
  const listening = input.listeningPids ?? new Set<number>();
  const families = findDaemonFamilies(input, markers, children);
  const candidates = rootCandidates(input, markers, families);
  const roots = findRoots(input, candidates);
  const claimed = new Set<number>();
  // Background sessions first: their trees are theirs, and what is left under a daemon is its family's.
  for (const pid of families.background.keys()) claimed.add(pid);
  const walk = (rootPid: number, agent: string, family?: SessionFamily) => {
    const root = input.table.entries.get(rootPid) as ProcessEntry;
    const members: SessionMember[] = [];
    const keys = new Set<string>([`${agent}:root-pid:${rootPid}`]);
    const roles = new Map<number, MemberRole>();
    // A daemon's family also holds the workers it adopted from a dead daemon (family.ts).
    const adopted = family?.kind === 'daemon' ? (families.adopted.get(rootPid) ?? []) : [];
    const stack = [...(children.get(rootPid) ?? []), ...adopted];
    while (stack.length > 0) {
      const entry = input.table.entries.get(stack.pop() as number);
      if (entry === undefined || isZombie(entry) || claimed.has(entry.pid)) continue;
      claimed.add(entry.pid);
      const hits = markers.get(entry.pid) ?? [];
      for (const key of sessionKeysOf(hits)) keys.add(key);
      const subagent = rootAgentOf(entry, input.rules) !== null;
      const relaunch = isRelaunch(entry, candidates);
      // The agent's own process: a marker naming its pid as the root's names this session.
      if (relaunch) keys.add(`${agent}:root-pid:${entry.pid}`);
      const worker = family?.kind === 'daemon' && families.workers.has(entry.pid);
      const own =
        relaunch || worker ? 'agent' : roleOf(entry, input.rules, { subagent, listening: listening.has(entry.pid) });
      // A browser's zygotes, renderers, GPU and crashpad are its tree: one browser, not `other`s.
      const role = roles.get(entry.ppid) === 'browser' ? 'browser' : own;
      roles.set(entry.pid, role);
      members.push({ entry, role, via: 'descendant' });
      stack.push(...(children.get(entry.pid) ?? []));
    }
    return {
      id: sessionIdOf(agent, root),
      agent,
      root,
      members,
      sessionKeys: keys,
      ...(family !== undefined ? { family } : {}),
    };
  };
  const background = [...families.background].map(([pid, found]) =>
    walk(pid, found.agent, { kind: 'background', daemon: found.daemon }),
  );
  const plain = [...roots].map(([rootPid, agent]) => walk(rootPid, agent));
  const daemons = [...families.daemons].map(([pid, agent]) => {
    const daemon = input.table.entries.get(pid) as ProcessEntry;
    return walk(pid, agent, { kind: 'daemon', daemon });
  });
  const sessions = [...background, ...plain, ...daemons];
  for (const session of sessions) claimed.add(session.root.pid);
  addMarkedMembers(input, sessions, markers, claimed, listening);
  addTeamServers(input, sessions, children, claimed, listening, markers);
  return sessions.map((session) => ({ ...session, sessionKeys: [...session.sessionKeys] }));
}

/** Processes outside every root's subtree whose markers name a session (e.g. a setsid'd, reparented server). */
function addMarkedMembers(
  input: RecogniseInput,
  sessions: { members: SessionMember[]; sessionKeys: Set<string> }[],
  markers: ReadonlyMap<number, MarkerHit[]>,
  claimed: Set<number>,
  listening: ReadonlySet<number>,
): void {
  for (const [pid, hits] of markers) {
    if (claimed.has(pid)) continue;
    const keys = sessionKeysOf(hits);
    const session = sessions.find((candidate) => keys.some((key) => candidate.sessionKeys.has(key)));
    const entry = input.table.entries.get(pid);
    if (session === undefined || entry === undefined) continue;
    claimed.add(pid);
    const subagent = rootAgentOf(entry, input.rules) !== null;
    session.members.push({
      entry,
      role: roleOf(entry, input.rules, { subagent, listening: listening.has(pid) }),
      via: 'marker',
    });
  }
}

/**
 * tmux servers a session started (daemonised, so outside its tree): an agent team's server and
 * one a member's client created, each with the processes in its panes (teammates among them).
 */
function addTeamServers(
  input: RecogniseInput,
  sessions: { root: ProcessEntry; agent: string; members: SessionMember[]; family?: SessionFamily }[],
  children: ReadonlyMap<number, readonly number[]>,
  claimed: Set<number>,
  listening: ReadonlySet<number>,
  markers: ReadonlyMap<number, readonly MarkerHit[]>,
): void {
  for (const server of input.table.entries.values()) {
    if (claimed.has(server.pid) || !isTmuxServer(server) || !isConsidered(server, input.uid)) continue;
    const session =
      sessions.find((candidate) => {
        const agents = [candidate.root, ...candidate.members.filter((m) => m.role === 'agent').map((m) => m.entry)];
        return (
          teamServerEvidence(
            server,
            agents,
            candidate.members.map((m) => m.entry),
          ) !== null
        );
      }) ?? markedServerOwner(input, server, sessions, markers);
    if (session === undefined) continue;
    claimed.add(server.pid);
    session.members.push({ entry: server, role: 'tmux-server', via: 'team' });
    const stack = [...(children.get(server.pid) ?? [])];
    while (stack.length > 0) {
      const entry = input.table.entries.get(stack.pop() as number);
      if (entry === undefined || isZombie(entry) || claimed.has(entry.pid)) continue;
      claimed.add(entry.pid);
      const subagent = rootAgentOf(entry, input.rules) !== null;
      session.members.push({
        entry,
        role: roleOf(entry, input.rules, { subagent, listening: listening.has(entry.pid) }),
        via: 'team',
      });
      stack.push(...(children.get(entry.pid) ?? []));
    }
  }
}

/** The session a marked tmux server whose creating client is gone came from (team-servers.ts), unless an ended session remembers it. */
function markedServerOwner<
  S extends { readonly root: ProcessEntry; readonly agent: string; readonly family?: SessionFamily },
>(
  input: RecogniseInput,
  server: ProcessEntry,
  sessions: readonly S[],
  markers: ReadonlyMap<number, readonly MarkerHit[]>,
): S | undefined {
  const hits = markers.get(server.pid);
  if (hits === undefined) return undefined;
  // A session daemon runs no shell of its own: its sessions' shells carry their session's id.
  const found = markedServerSession(
    server,
    hits,
    sessions.filter((session) => session.family?.kind !== 'daemon'),
  );
  if (found === null) return undefined;
  // Remembered as another session's member (one that ended since): never moved to this one.
  const owner = input.rememberedMembers?.get(identityKey(server));
  return owner === undefined || owner === identityKey(found.session.root) ? found.session : undefined;
}
