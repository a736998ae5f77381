/**
 * Which agent started this MCP server, and which of its sessions: read from the environment the
 * agent gave the server (`CLAUDE_CODE_SESSION_ID`, `CODEX_THREAD_ID`, …), with the engine's own
 * agent rules, so the server and the session observer agree on what a marker means. An agent
 * that passes MCP servers only a whitelist of variables (Codex) is recognised by its own argv, as
 * our parent process, instead: its session id is then unknown and the lease names its pid.
 */
import { builtinRulesFile, compileRules, markerHits, readProcEntry, rootAgentOf } from '@treewarden/engine';

/** How much of a session id the lease name shows; the whole id is kept in `sessionId`. */
export const LEASE_NAME_SESSION_CHARS = 8;

export interface AgentIdentity {
  /** Rule id (`claude-code`, `codex`, …), or null when no marker names an agent. */
  readonly agent: string | null;
  /** Display name (`Claude Code`). */
  readonly agentName: string | null;
  /** The agent's session id, when a marker names one. */
  readonly sessionId: string | null;
  /** Lease name the app shows: `mcp · claude-code · 4f1c2a…`. */
  readonly leaseName: string;
}

export function detectAgent(env: NodeJS.ProcessEnv, parentPid: number = process.ppid): AgentIdentity {
  const rules = compileRules([builtinRulesFile()]);
  const vars = new Map<string, string>();
  for (const name of rules.markersByName.keys()) {
    const value = env[name];
    if (value !== undefined) vars.set(name, value);
  }
  const hits = markerHits(vars, rules);
  // A hit that names a session decides the agent (Amp also sets CLAUDECODE; its own marker wins).
  const named = hits.find((hit) => hit.names === 'session');
  const parent = readProcEntry(parentPid);
  const byArgv = parent === null ? null : rootAgentOf(parent, rules);
  const agent = named?.agent ?? hits[0]?.agent ?? byArgv?.id ?? null;
  const rule = agent === null ? undefined : rules.agents.find((candidate) => candidate.id === agent);
  const sessionId = named?.value ?? null;
  const tag =
    sessionId?.slice(0, LEASE_NAME_SESSION_CHARS) ??
    (byArgv?.id === agent && agent !== null ? `pid ${parentPid}` : null);
  return {
    agent,
    agentName: rule?.name ?? null,
    sessionId,
    leaseName: ['mcp', agent ?? 'unknown agent', ...(tag === null ? [] : [tag])].join(' · '),
  };
}

/** The environment without any variable an agent rule reads as a marker (for runs kept past the session). */
export function withoutAgentMarkers(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const names = compileRules([builtinRulesFile()]).markersByName;
  return Object.fromEntries(Object.entries(env).filter(([name]) => !names.has(name)));
}
