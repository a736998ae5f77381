/**
 * Which process is the agent whose hook this is: the hook runs under a shell under the agent, so
 * the agent is the nearest ancestor with the agent rule's argv shape (or its session daemon's
 * worker shape: a background session runs in a worker, under the daemon, which is no session). Where none has it (an agent
 * started under a name no rule knows), the nearest ancestor that is neither a shell nor a command
 * wrapper (`timeout`, `env`, `nice`…: a hook wrapped in one must not record the wrapper) stands in.
 * Reads only the ancestor chain (a few /proc files), never the whole table: a hook must be fast.
 */
import { readProcEntry } from '../../table/linux-proc.js';
import type { ProcessEntry } from '../../table/types.js';
import { familyShapeOf, matchesShape } from '../rules/match.js';
import type { AgentRule, AgentRules } from '../rules/rules.js';
import { MAX_ANCESTRY_DEPTH } from '../sessions/recognise.js';

export interface HookAncestry {
  /** The agent's process, or null when no ancestor could stand for it. */
  readonly agent: ProcessEntry | null;
  /** How it was picked: its argv matched the agent rule, or it was the nearest non-shell parent. */
  readonly matchedBy: 'rule' | 'parent' | null;
  /** Every ancestor from the hook's parent up to pid 1 (exclusive): the reaper never touches these. */
  readonly chain: readonly ProcessEntry[];
}

export function readChain(startPid: number): ProcessEntry[] {
  const chain: ProcessEntry[] = [];
  let pid = startPid;
  for (let depth = 0; pid > 1 && depth < MAX_ANCESTRY_DEPTH; depth += 1) {
    const entry = readProcEntry(pid);
    if (entry === null) break;
    chain.push(entry);
    pid = entry.ppid;
  }
  return chain;
}

/** Commands that run another command and exit with it: never the agent a hook belongs to. */
export const HOOK_WRAPPERS: ReadonlySet<string> = new Set([
  'timeout',
  'env',
  'nice',
  'ionice',
  'nohup',
  'stdbuf',
  'setsid',
  'time',
  'chrt',
  'taskset',
  'flock',
  'unbuffer',
  'xargs',
]);

function isShellOrWrapper(entry: ProcessEntry, rules: AgentRules): boolean {
  const name = (entry.args[0] ?? '').split('/').pop() ?? '';
  if (HOOK_WRAPPERS.has(name)) return true;
  return rules.roles.some((rule) => rule.role === 'shell' && matchesShape(entry.args, rule));
}

export function findHookAgent(ruleId: string, rules: AgentRules, startPid: number = process.ppid): HookAncestry {
  return pickHookAgent(ruleId, rules, readChain(startPid));
}

/** The agent among an ancestor chain read earlier (the SessionEnd hook reads it; the reaper picks). */
export function pickHookAgent(ruleId: string, rules: AgentRules, chain: readonly ProcessEntry[]): HookAncestry {
  const rule = rules.agents.find((agent) => agent.id === ruleId);
  // A session daemon's worker runs the session (a claimed spare keeps its argv); the daemon never does.
  const isAgent = (entry: ProcessEntry, agent: AgentRule): boolean => {
    const family = familyShapeOf(entry, agent);
    if (family !== null) return family === 'worker';
    return agent.roots.some((shape) => matchesShape(entry.args, shape));
  };
  const byRule = rule === undefined ? undefined : chain.find((entry) => isAgent(entry, rule));
  if (byRule !== undefined) return { agent: byRule, matchedBy: 'rule', chain };
  const parent = chain.find((entry) => !isShellOrWrapper(entry, rules));
  return parent === undefined ? { agent: null, matchedBy: null, chain } : { agent: parent, matchedBy: 'parent', chain };
}
