/**
 * Session daemons (an agent rule's `daemon`: Claude Code's `claude --bg`) in a process table. The
 * daemon and its workers are one family; a worker that runs a session (a claimed spare, or the
 * session process a pty host started) is that session's root, a session of its own. What tells a
 * worker runs a session: a session-shaped process of the agent under it (`claude.exe --session-id
 * …`), something under it carrying the agent's session marker (its MCP servers get
 * CLAUDE_CODE_SESSION_ID), or an open hook record naming it as the agent. An idle spare shows none
 * of these and stays the family's. Pure over its inputs.
 */
import { identityKey, isZombie, type ProcessEntry, type ProcessTable } from '../../table/types.js';
import { familyShapeOf, type MarkerHit, rootAgentOf } from '../rules/match.js';
import type { AgentRule, AgentRules } from '../rules/rules.js';

/** What family recognition reads of recognition's input (recognise.ts `RecogniseInput`). */
export interface FamilyInput {
  readonly table: ProcessTable;
  readonly rules: AgentRules;
  readonly uid?: number;
  /** Identities an open hook record names as its agent process. */
  readonly hookRoots?: ReadonlySet<string>;
}

/** Bound on ancestor walks (a ppid cycle would be a kernel bug; never loop forever). */
const MAX_DEPTH = 256;

export interface DaemonFamilies {
  /** Live daemons: pid → agent id. */
  readonly daemons: ReadonlyMap<number, string>;
  /** Background sessions' roots: pid → agent id and the daemon it runs under. */
  readonly background: ReadonlyMap<number, { readonly agent: string; readonly daemon: ProcessEntry }>;
  /** Every pid in a live daemon's tree (no session of its own can start there). */
  readonly inFamily: ReadonlySet<number>;
  /** Every process with a worker's argv shape, in a family or orphaned. */
  readonly workers: ReadonlySet<number>;
  /**
   * Workers a dead daemon left that a live daemon of the same family key adopted (a new daemon
   * takes over the old one's sessions): daemon pid → the adopted workers' top pids.
   */
  readonly adopted: ReadonlyMap<number, readonly number[]>;
}

/** The family key a process's argv names (rule `daemon.familyKey`, group 1), or null. */
function familyKeyOf(entry: ProcessEntry, rule: AgentRule): string | null {
  const pattern = rule.daemon?.familyKey;
  if (pattern === undefined) return null;
  for (const arg of entry.args) {
    const key = pattern.exec(arg)?.[1];
    if (key !== undefined) return key;
  }
  return null;
}

function considered(entry: ProcessEntry | undefined, uid: number | undefined): entry is ProcessEntry {
  return entry !== undefined && entry.pid > 1 && !isZombie(entry) && (uid === undefined || entry.uid === uid);
}

/**
 * Whether a direct child carries `agent`'s session marker: a session's MCP servers and shells do;
 * the session process a pty host starts does not (its marker is set for what it starts), so a pty
 * host is never taken for the session it hosts.
 */
function childCarriesSession(
  pid: number,
  agent: string,
  children: ReadonlyMap<number, readonly number[]>,
  markers: ReadonlyMap<number, readonly MarkerHit[]>,
): boolean {
  return (children.get(pid) ?? []).some((child) =>
    (markers.get(child) ?? []).some((hit) => hit.agent === agent && hit.names === 'session'),
  );
}

export function findDaemonFamilies(
  input: FamilyInput,
  markers: ReadonlyMap<number, readonly MarkerHit[]>,
  children: ReadonlyMap<number, readonly number[]>,
): DaemonFamilies {
  const daemons = new Map<number, string>();
  const background = new Map<number, { agent: string; daemon: ProcessEntry }>();
  const inFamily = new Set<number>();
  const workers = new Set<number>();
  const adopted = new Map<number, number[]>();
  const familyRules = input.rules.agents.filter((rule) => rule.daemon !== undefined);
  if (familyRules.length === 0) return { daemons, background, inFamily, workers, adopted };
  const daemonRule = new Map<number, AgentRule>();
  for (const entry of input.table.entries.values()) {
    if (!considered(entry, input.uid)) continue;
    for (const rule of familyRules) {
      const shape = familyShapeOf(entry, rule);
      if (shape === 'worker') workers.add(entry.pid);
      if (shape === 'daemon') daemonRule.set(entry.pid, rule);
    }
  }
  const walk = (daemon: ProcessEntry, rule: AgentRule, tops: readonly number[]): number[] => {
    const walked: number[] = [];
    const stack = [...tops];
    while (stack.length > 0) {
      const entry = input.table.entries.get(stack.pop() as number);
      if (!considered(entry, input.uid) || inFamily.has(entry.pid)) continue;
      inFamily.add(entry.pid);
      walked.push(entry.pid);
      const runs = runsSession(entry, rule, input, markers, children, workers);
      if (runs) background.set(entry.pid, { agent: rule.id, daemon });
      stack.push(...(children.get(entry.pid) ?? []));
    }
    return walked;
  };
  const keys = new Map<string, ProcessEntry>();
  for (const [pid, rule] of daemonRule) {
    // A daemon inside another daemon's tree is that family's (it cannot be two families).
    if (hasAncestor(input.table, pid, daemonRule)) continue;
    const daemon = input.table.entries.get(pid) as ProcessEntry;
    daemons.set(pid, rule.id);
    for (const worker of walk(daemon, rule, children.get(pid) ?? [])) {
      const entry = input.table.entries.get(worker);
      const key = entry === undefined || !workers.has(worker) ? null : familyKeyOf(entry, rule);
      if (key !== null) keys.set(`${rule.id}:${key}`, daemon);
    }
  }
  // A dead daemon's workers (their top reparented away) that name a live daemon's family key
  // were adopted by it (Claude Code 2.1.328's daemon log: "bg adopt: adopted=1"): its family again.
  for (const pid of workers) {
    const entry = input.table.entries.get(pid) as ProcessEntry;
    if (inFamily.has(pid) || workers.has(entry.ppid)) continue;
    const rule = familyRules.find((candidate) => familyShapeOf(entry, candidate) === 'worker');
    const key = rule === undefined ? null : familyKeyOf(entry, rule);
    const daemon = key === null || rule === undefined ? undefined : keys.get(`${rule.id}:${key}`);
    if (daemon === undefined || rule === undefined) continue;
    adopted.set(daemon.pid, [...(adopted.get(daemon.pid) ?? []), pid]);
    walk(daemon, rule, [pid]);
  }
  // Only the topmost session-running process of a chain is a session's root (a claimed spare's own
  // `claude.exe` children are its subagents, not sessions of their own).
  for (const pid of [...background.keys()]) if (hasAncestor(input.table, pid, background)) background.delete(pid);
  return { daemons, background, inFamily, workers, adopted };
}

/**
 * A process directly under the daemon or one of its workers that runs a session: the agent's
 * session-shaped process, or a worker (a claimed spare keeps its argv and environment) that an
 * open hook record names or whose children carry the agent's session marker.
 */
function runsSession(
  entry: ProcessEntry,
  rule: AgentRule,
  input: FamilyInput,
  markers: ReadonlyMap<number, readonly MarkerHit[]>,
  children: ReadonlyMap<number, readonly number[]>,
  workers: ReadonlySet<number>,
): boolean {
  const parent = input.table.entries.get(entry.ppid);
  const parentIsFamily = parent !== undefined && (workers.has(parent.pid) || familyShapeOf(parent, rule) === 'daemon');
  if (!parentIsFamily) return false;
  if (!workers.has(entry.pid)) return rootAgentOf(entry, input.rules)?.id === rule.id;
  return (
    input.hookRoots?.has(identityKey(entry)) === true || childCarriesSession(entry.pid, rule.id, children, markers)
  );
}

function hasAncestor(table: ProcessTable, pid: number, set: ReadonlyMap<number, unknown>): boolean {
  let current = table.entries.get(pid)?.ppid ?? 0;
  for (let depth = 0; current > 1 && depth < MAX_DEPTH; depth += 1) {
    if (set.has(current)) return true;
    current = table.entries.get(current)?.ppid ?? 0;
  }
  return false;
}

/** Whether a worker is at or above the process: a session process of a dead daemon's worker is no live session. */
export function isUnderWorker(entry: ProcessEntry, table: ProcessTable, workers: ReadonlySet<number>): boolean {
  let current = entry.pid;
  for (let depth = 0; current > 1 && depth < MAX_DEPTH; depth += 1) {
    if (workers.has(current)) return true;
    current = table.entries.get(current)?.ppid ?? 0;
  }
  return false;
}
