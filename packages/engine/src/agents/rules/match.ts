/** Matching one process against compiled rules: argv shapes, markers, roles. Pure. */
import type { ProcessEntry } from '../../table/types.js';
import type { MarkerVars } from '../read/environ.js';
import type { MemberRole } from './rule-schema.js';
import type { AgentRule, AgentRules, ArgvPattern, MarkerRule } from './rules.js';

/** argv joined for `commandLine` patterns is cut here, so a hostile argv cannot make matching slow. */
export const MAX_MATCHED_COMMAND_CHARS = 4096;

export interface MarkerHit {
  readonly agent: string;
  readonly name: string;
  readonly value: string;
  readonly names?: 'session' | 'root-pid';
  /** The user rules file whose marker matched (absent: the built-in rules). */
  readonly source?: string;
  /** `self`: the agent carries it on its own process too (rules.ts). */
  readonly on: 'started' | 'self';
}

/** The first argument after argv[0] that is not an option: the script an interpreter runs. */
export function scriptOf(args: readonly string[]): string {
  for (let index = 1; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (!arg.startsWith('-')) return arg;
  }
  return '';
}

export function matchesShape(args: readonly string[], shape: ArgvPattern): boolean {
  if (shape.argv0 !== undefined && !shape.argv0.test(args[0] ?? '')) return false;
  if (shape.argv1 !== undefined && !shape.argv1.test(args[1] ?? '')) return false;
  if (shape.script !== undefined && !shape.script.test(scriptOf(args))) return false;
  if (shape.commandLine !== undefined) {
    const line = args.join(' ').slice(0, MAX_MATCHED_COMMAND_CHARS);
    if (!shape.commandLine.test(line)) return false;
  }
  return true;
}

/**
 * Verdicts by argv array, per rules object. A reader hands out one argv array per identity for its
 * whole life (table/linux-entry.ts caches it), so a full scan re-judges only new identities: at
 * ~1,000 processes every scan matched each argv against every root shape twice, the observer's
 * largest allocation. Weak on both sides: reloaded rules and forgotten identities take theirs along.
 */
const rootVerdicts = new WeakMap<AgentRules, WeakMap<readonly string[], AgentRule | null>>();

/** The agent whose root argv shape this process has, or null. */
export function rootAgentOf(entry: ProcessEntry, rules: AgentRules): AgentRule | null {
  if (entry.args.length === 0) return null;
  let verdicts = rootVerdicts.get(rules);
  if (verdicts === undefined) {
    verdicts = new WeakMap();
    rootVerdicts.set(rules, verdicts);
  }
  const known = verdicts.get(entry.args);
  if (known !== undefined) return known;
  // A daemon or its worker has the agent's binary too, but it is the family's, never a session root by argv.
  const agent =
    rules.agents.find(
      (rule) => rule.roots.some((shape) => matchesShape(entry.args, shape)) && familyShapeOf(entry, rule) === null,
    ) ?? null;
  verdicts.set(entry.args, agent);
  return agent;
}

/** Whether the process is `rule`'s session daemon or one of its workers (rule `daemon`), by argv. */
export function familyShapeOf(entry: ProcessEntry, rule: AgentRule): 'daemon' | 'worker' | null {
  const daemon = rule.daemon;
  if (daemon === undefined || entry.args.length === 0) return null;
  // Every scan asks this of every process: judged once per argv array, like root shapes.
  let verdicts = familyVerdicts.get(rule);
  if (verdicts === undefined) {
    verdicts = new WeakMap();
    familyVerdicts.set(rule, verdicts);
  }
  const known = verdicts.get(entry.args);
  if (known !== undefined) return known;
  const shape = daemon.roots.some((candidate) => matchesShape(entry.args, candidate))
    ? 'daemon'
    : daemon.workers.some((candidate) => matchesShape(entry.args, candidate))
      ? 'worker'
      : null;
  verdicts.set(entry.args, shape);
  return shape;
}

const familyVerdicts = new WeakMap<AgentRule, WeakMap<readonly string[], 'daemon' | 'worker' | null>>();

/** The agent whose session daemon this process is, or null. */
export function daemonAgentOf(entry: ProcessEntry, rules: AgentRules): AgentRule | null {
  return rules.agents.find((rule) => familyShapeOf(entry, rule) === 'daemon') ?? null;
}

function markerMatches(marker: MarkerRule, value: string): boolean {
  return marker.value === undefined || marker.value.test(value);
}

/** Every marker rule the variables satisfy. */
export function markerHits(vars: MarkerVars | null, rules: AgentRules): MarkerHit[] {
  if (vars === null || vars.size === 0) return [];
  const hits: MarkerHit[] = [];
  for (const [name, value] of vars) {
    for (const marker of rules.markersByName.get(name) ?? []) {
      if (markerMatches(marker, value))
        hits.push({
          agent: marker.agent,
          name,
          value,
          on: marker.on,
          ...(marker.names ? { names: marker.names } : {}),
          ...(marker.source !== undefined ? { source: marker.source } : {}),
        });
    }
  }
  return hits;
}

/** Hits that say the process was started by `agent` (its `self` markers say nothing of the kind). */
export function startedBy(hits: readonly MarkerHit[], agent: string): boolean {
  return hits.some((hit) => hit.agent === agent && hit.on === 'started');
}

/**
 * The agent a process's markers speak for. An agent run inside another agent's session (Kilo
 * started from a Copilot shell) passes the outer agent's markers on with its own, so its children
 * carry both: `outer` names the agents found to be outside (the process a root-pid marker names
 * carries them itself: they were there before that agent set its own), which never win. Among the
 * rest the most hits win (Kilo's children carry KILO=1, KILO_PID and OPENCODE=1: they are Kilo's),
 * then the earlier rule: never the environment's order, which Bun-built agents shuffle.
 */
export function primaryAgent(
  hits: readonly MarkerHit[],
  options: { readonly outer?: ReadonlySet<string>; readonly ruleOrder?: readonly string[] } = {},
): string | null {
  const counts = new Map<string, number>();
  for (const hit of hits) counts.set(hit.agent, (counts.get(hit.agent) ?? 0) + 1);
  const inner = [...counts.keys()].filter((agent) => !(options.outer?.has(agent) ?? false));
  const candidates = inner.length > 0 ? inner : [...counts.keys()];
  const rank = (agent: string): number => {
    const index = options.ruleOrder?.indexOf(agent) ?? -1;
    return index < 0 ? Number.MAX_SAFE_INTEGER : index;
  };
  let best: string | null = null;
  for (const agent of candidates) {
    if (best === null) {
      best = agent;
      continue;
    }
    const diff = (counts.get(agent) ?? 0) - (counts.get(best) ?? 0);
    if (diff > 0 || (diff === 0 && rank(agent) < rank(best))) best = agent;
  }
  return best;
}

/**
 * Agents outside the one that started a process: for each root-pid marker, the other agents whose
 * markers the named process (that agent's own root) carries itself. `markersOf`: a live process's hits.
 */
export function outerAgents(
  hits: readonly MarkerHit[],
  markersOf: (pid: number) => readonly MarkerHit[] | undefined,
): Set<string> {
  const outer = new Set<string>();
  for (const hit of hits) {
    if (hit.names !== 'root-pid' || !/^[0-9]{1,10}$/.test(hit.value)) continue;
    for (const carried of markersOf(Number(hit.value)) ?? []) if (carried.agent !== hit.agent) outer.add(carried.agent);
  }
  return outer;
}

/** Keys that tie a process to one session: `agent:session:VALUE` or `agent:root-pid:PID`. */
export function sessionKeysOf(hits: readonly MarkerHit[]): string[] {
  return hits.flatMap((hit) => (hit.names !== undefined ? [`${hit.agent}:${hit.names}:${hit.value}`] : []));
}

/** `NAME=value`, and for a user rule the file it came from, so a person can check the rule too. */
export function describeHit(hit: MarkerHit): string {
  const source = hit.source === undefined ? '' : ` (rule ${hit.source})`;
  return `${hit.name}=${hit.value.slice(0, 80)}${source}`;
}

/** What a tmux server process is called (`comm`): the client forks it and renames it, without an exec. */
export const TMUX_SERVER_COMMAND = 'tmux: server';
export const TMUX_CLIENT_COMMAND = 'tmux: client';

/** A member's role; `subagent` and `dev-server` are decided by the caller's evidence. */
export function roleOf(
  entry: ProcessEntry,
  rules: AgentRules,
  evidence: { readonly subagent: boolean; readonly listening: boolean },
): MemberRole {
  // A forked tmux server keeps its creating client's argv; only its name (comm) says it serves.
  if (entry.command === TMUX_SERVER_COMMAND) return 'tmux-server';
  // An agent-team member is started with its agent id (`claude --agent-id NAME@TEAM --team-name TEAM`).
  if (evidence.subagent) return entry.args.includes('--agent-id') ? 'teammate' : 'subagent';
  const byArgv = rules.roles.find((rule) => matchesShape(entry.args, rule));
  // A shell's argv says little (a listening `sh -c` is a dev server); every other shape says more than a socket.
  if (byArgv !== undefined && byArgv.role !== 'shell') return byArgv.role;
  if (evidence.listening) return 'dev-server';
  return byArgv?.role ?? 'other';
}
