/**
 * The `session_id` the exporter puts on series and log records: the id the agent's own telemetry
 * carries (Claude Code's session id, Codex's conversation id, Gemini's session id), so a dashboard
 * joins the two; Treewarden's own session key only where the agent's id was never seen.
 */
import type { Snapshot } from '@treewarden/protocol';

export type SessionIdOf = (treewardenId: string) => string;

export function sessionIdResolver(snapshot: Snapshot): SessionIdOf {
  const agentIds = new Map<string, string>();
  for (const session of snapshot.sessions ?? [])
    if (session.agentSessionId !== undefined) agentIds.set(session.id, session.agentSessionId);
  return (treewardenId) => agentIds.get(treewardenId) ?? treewardenId;
}
