/**
 * Which agent started this MCP server, and which of its sessions: read from the environment the
 * agent gave the server (`CLAUDE_CODE_SESSION_ID`, `CODEX_THREAD_ID`, …), with the engine's own
 * agent rules, so the server and the session observer agree on what a marker means.
 */
import { builtinRulesFile, compileRules, markerHits } from '@treewarden/engine';

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

export function detectAgent(env: NodeJS.ProcessEnv): AgentIdentity {
  const rules = compileRules([builtinRulesFile()]);
  const vars = new Map<string, string>();
  for (const name of rules.markersByName.keys()) {
    const value = env[name];
    if (value !== undefined) vars.set(name, value);
  }
  const hits = markerHits(vars, rules);
  // A hit that names a session decides the agent (Amp also sets CLAUDECODE; its own marker wins).
  const named = hits.find((hit) => hit.names === 'session');
  const agent = named?.agent ?? hits[0]?.agent ?? null;
  const rule = agent === null ? undefined : rules.agents.find((candidate) => candidate.id === agent);
  const sessionId = named?.value ?? null;
  return {
    agent,
    agentName: rule?.name ?? null,
    sessionId,
    leaseName: leaseNameOf(agent, sessionId),
  };
}

function leaseNameOf(agent: string | null, sessionId: string | null): string {
  const parts = ['mcp', agent ?? 'unknown agent'];
  if (sessionId !== null) parts.push(sessionId.slice(0, LEASE_NAME_SESSION_CHARS));
  return parts.join(' · ');
}
