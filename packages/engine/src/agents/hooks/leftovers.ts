/**
 * What a session left behind once its agent exited, found by the id the agent put in its
 * children's environment: every live process carrying exactly that id, and their descendants.
 * Never pid ≤ 1, a protected command, another user's process, an excluded pid (the reaper's and
 * the hook's ancestors), the agent itself, a live session's root, another agent's root, a process carrying any other
 * session's id (nor what lies under it), a tmux server with a client attached (nor its panes), or a carrier that started outside the session
 * (`startedWithinSession`, the same check the leak judge makes). A carrier is a seed only when no
 * live agent is among its ancestors: the agent that ran the SessionEnd hook has exited, so its
 * leftovers have none, while a live agent's children (another agent resumed on the same id, or
 * the target of a forged SessionEnd) still have theirs. Pure over its inputs (but for a tmux
 * server's client count: read from /proc unless the input gives it).
 */
import { indexChildren } from '../../table/trees.js';
import { identityKey, isZombie, type ProcessEntry, type ProcessTable } from '../../table/types.js';
import type { AgentLeak, LeakedProcess } from '../leaks/find-leaks.js';
import { startedWithinSession } from '../leaks/leak-judge.js';
import { contextReasons, PROTECTED_COMMANDS } from '../leaks/leak-reasons.js';
import type { MarkerReader } from '../read/environ.js';
import { tmuxClientCount } from '../read/tmux-clients.js';
import { markerHits, rootAgentOf, sessionKeysOf, TMUX_SERVER_COMMAND } from '../rules/match.js';
import type { AgentRules } from '../rules/rules.js';
import { MAX_ANCESTRY_DEPTH } from '../sessions/recognise.js';
import type { StoredSession } from '../sessions/store-schema.js';

export interface LeftoverInput {
  readonly table: ProcessTable;
  /** The session, ended (`endedAtMs` set) and recorded by a hook with an env key. */
  readonly session: StoredSession;
  readonly rules: AgentRules;
  /** Reads the rules' marker variables plus the session's env key. */
  readonly readMarkers: MarkerReader;
  readonly exclude: ReadonlySet<number>;
  /** Identity keys of live sessions' roots: never a target, whatever they carry. */
  readonly liveRoots: ReadonlySet<string>;
  readonly uid?: number;
  readonly now: number;
  /** Clients attached to a tmux server (null: unknown); default: counted from its open sockets. */
  readonly tmuxClientsOf?: (entry: ProcessEntry) => number | null;
}

type Belonging = 'ours' | 'theirs' | 'none';

/** Whether a process carries our id, another session's id (any agent's), or none. */
function belonging(input: LeftoverInput, entry: ProcessEntry, ours: string, envKey: string): Belonging {
  const vars = input.readMarkers(entry);
  if (vars === null) return 'none';
  const keys = sessionKeysOf(markerHits(vars, input.rules)).filter((key) => !key.includes(':root-pid:'));
  const value = vars.get(envKey);
  if (keys.some((key) => key !== ours) || (value !== undefined && value !== input.session.hook?.sessionId))
    return 'theirs';
  return value !== undefined ? 'ours' : 'none';
}

function isTarget(input: LeftoverInput, entry: ProcessEntry | undefined): entry is ProcessEntry {
  if (entry === undefined || entry.pid <= 1 || isZombie(entry) || input.exclude.has(entry.pid)) return false;
  if (PROTECTED_COMMANDS.has(entry.command) || input.liveRoots.has(identityKey(entry))) return false;
  const root = input.session.root;
  if (entry.pid === root.pid && entry.startTime === root.startTime) return false;
  // Another agent started from this session (codex run from a Claude shell) is a live agent of
  // its own, never a leftover; this agent's own shape (a subagent) may be one.
  const agent = rootAgentOf(entry, input.rules);
  if (agent !== null && agent.id !== input.session.agent) return false;
  return input.uid === undefined || entry.uid === input.uid;
}

/** Whether a live agent (an agent root by the rules, or a live session's root) is among the ancestors. */
function hasLiveAgentAncestor(input: LeftoverInput, entry: ProcessEntry): boolean {
  let pid = entry.ppid;
  for (let depth = 0; pid > 1 && depth < MAX_ANCESTRY_DEPTH; depth += 1) {
    const parent = input.table.entries.get(pid);
    if (parent === undefined) return false;
    if (input.liveRoots.has(identityKey(parent)) || rootAgentOf(parent, input.rules) !== null) return true;
    pid = parent.ppid;
  }
  return false;
}

function leftover(input: LeftoverInput, entry: ProcessEntry, why: string): LeakedProcess {
  const context = contextReasons(entry, input.table, new Set(), input.now);
  return { entry, role: 'other', reasons: [why, ...context] };
}

/**
 * A tmux server someone is attached to is not a leftover, nor anything in its panes (a person is
 * watching that team); an unknown client count counts as watched.
 */
function dropWatchedServers(
  input: LeftoverInput,
  found: Map<number, LeakedProcess>,
  children: ReadonlyMap<number, readonly number[]>,
): void {
  const clientsOf = input.tmuxClientsOf ?? ((entry: ProcessEntry) => tmuxClientCount(entry.pid));
  for (const { entry } of [...found.values()]) {
    if (entry.command !== TMUX_SERVER_COMMAND || !found.has(entry.pid) || clientsOf(entry) === 0) continue;
    const stack = [entry.pid];
    while (stack.length > 0) {
      const pid = stack.pop() as number;
      found.delete(pid);
      stack.push(...(children.get(pid) ?? []));
    }
  }
}

export function findSessionLeftovers(input: LeftoverInput): AgentLeak | null {
  const { session, table } = input;
  const hook = session.hook;
  if (hook === undefined || hook.envKey === null) return null;
  const ours = `${session.agent}:session:${hook.sessionId}`;
  const found = new Map<number, LeakedProcess>();
  for (const entry of table.entries.values()) {
    // The start bound first: it is free, and spares most processes an environ read.
    if (!isTarget(input, entry) || !startedWithinSession(entry, session)) continue;
    if (belonging(input, entry, ours, hook.envKey) !== 'ours' || hasLiveAgentAncestor(input, entry)) continue;
    found.set(entry.pid, leftover(input, entry, `carries ${hook.envKey}=${hook.sessionId}, whose session ended`));
  }
  const children = indexChildren(table.entries);
  const stack = [...found.keys()];
  while (stack.length > 0) {
    const parent = stack.pop() as number;
    for (const pid of children.get(parent) ?? []) {
      const entry = table.entries.get(pid);
      if (found.has(pid) || !isTarget(input, entry)) continue;
      if (belonging(input, entry, ours, hook.envKey) === 'theirs') continue;
      found.set(pid, leftover(input, entry, `descendant of ${parent}, which carries the ended session's id`));
      stack.push(pid);
    }
  }
  dropWatchedServers(input, found, children);
  if (found.size === 0) return null;
  return {
    sessionId: session.id,
    agent: session.agent,
    root: { pid: session.root.pid, startTime: session.root.startTime },
    why: `${session.agent} session ${hook.sessionId} ended (SessionEnd hook) and its agent ${session.root.pid} exited`,
    processes: [...found.values()],
  };
}
