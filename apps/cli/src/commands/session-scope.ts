/**
 * `--session ID` (repeatable) on the machine-wide agent commands (`watch`, `orphans`): only these
 * agent sessions, by the id `treewarden sessions` shows. A cleaner told about one session must not
 * reach another: with a scope, only the named sessions' events, leaks and alerts are reported, and
 * only theirs can be ended (`--auto-clean`, auto-trim, `--clean`).
 */
import type { AgentLeak, AgentObservation } from '@treewarden/engine';
import { UsageError } from './command.js';

/** What `sessions` prints: `AGENT-PID-START`, or `AGENT-orphan-…` for a tree found from markers. */
const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,159}$/;

/** null: no scope (every session on the machine). */
export type SessionScope = ReadonlySet<string> | null;

export function parseSessionScope(values: readonly string[] | undefined): SessionScope {
  if (values === undefined || values.length === 0) return null;
  for (const value of values)
    if (!SESSION_ID_PATTERN.test(value))
      throw new UsageError(
        `--session ${JSON.stringify(value)} is not a session id (as \`treewarden sessions\` shows it, e.g. claude-code-1234-567890)`,
      );
  return new Set(values);
}

export function inScope(scope: SessionScope, sessionId: string): boolean {
  return scope === null || scope.has(sessionId);
}

export function scopeLeaks(leaks: readonly AgentLeak[], scope: SessionScope): AgentLeak[] {
  return leaks.filter((leak) => inScope(scope, leak.sessionId));
}

/**
 * The observation narrowed to the scope. The table stays whole: a judgement inside a session (its
 * members' children, a stranger under a member) still sees every process.
 */
export function scopeObservation(observation: AgentObservation, scope: SessionScope): AgentObservation {
  if (scope === null) return observation;
  const ofScope = <T extends { readonly id: string }>(sessions: readonly T[]): T[] =>
    sessions.filter((session) => scope.has(session.id));
  return {
    ...observation,
    live: ofScope(observation.live),
    sessions: ofScope(observation.sessions),
    started: ofScope(observation.started),
    ended: ofScope(observation.ended),
    leaks: scopeLeaks(observation.leaks, scope),
  };
}
