/** The agent-session half of `treewarden orphans`: leaked members of dead sessions, and their clean-up. */
import {
  type AgentLeak,
  type AgentRules,
  type CleanedLeak,
  cleanAgentLeaks,
  leakGroupRow,
  observeAgentsOnce,
  type StoredSession,
  stopWithAgent,
} from '@treewarden/engine';
import type { AgentLeakGroup } from '@treewarden/protocol';
import { terminalArgs, terminalText } from '../terminal-text.js';
import { agentContext } from './agent-context.js';
import { type SessionScope, scopeLeaks } from './session-scope.js';

const ARGS_WIDTH = 70;

export interface AgentOrphans {
  readonly leaks: readonly AgentLeak[];
  readonly rows: readonly AgentLeakGroup[];
  /** Rule files and remembered sessions skipped, with why (a rule too broad to be evidence among them). */
  readonly problems: readonly { readonly file: string; readonly message: string }[];
  /** The remembered sessions (their containers are judged from these). */
  readonly sessions: readonly StoredSession[];
  /** The rules the leaks were judged with (an agent's own stop command comes from them). */
  readonly rules: AgentRules;
}

/** The leaks of dead sessions on this machine (with a scope: of those sessions only). */
export function findAgentOrphans(scope: SessionScope = null): AgentOrphans {
  const context = agentContext();
  const observation = observeAgentsOnce(context);
  const leaks = scopeLeaks(observation.leaks, scope);
  return {
    leaks,
    rows: leaks.map(leakGroupRow),
    problems: observation.problems,
    sessions: observation.sessions,
    rules: context.rules,
  };
}

export interface AgentCleanOptions {
  readonly ledgerFile: string;
  readonly graceSeconds: number | undefined;
  /**
   * Also end trees found from markers alone (no remembered session: `root` is null). Off by
   * default, like unregistered runs: the evidence is weaker, so ending them takes a deliberate ask.
   */
  readonly includeUnremembered: boolean;
}

export function cleanAgentOrphans(found: AgentOrphans, options: AgentCleanOptions): Promise<CleanedLeak[]> {
  const leaks = found.leaks.filter((leak) => leak.root !== null || options.includeUnremembered);
  return cleanAgentLeaks(leaks, {
    ledgerFile: options.ledgerFile,
    // The agent's own stop first (`claude stop ID` for a dead daemon's sessions), then the revalidated kill.
    stopFirst: (leak) => stopWithAgent(leak, found.rules),
    ...(options.graceSeconds !== undefined ? { graceMs: options.graceSeconds * 1000 } : {}),
  });
}

export function formatAgentLeak(leak: AgentLeak): string {
  const lines = leak.processes.map(({ entry, role, reasons }) => {
    const args = (entry.args.length > 0 ? terminalArgs(entry.args) : terminalText(entry.command)).slice(0, ARGS_WIDTH);
    return `  ${String(entry.pid).padStart(7)}  ${role.padEnd(10)} ${args}\n           why: ${reasons.join('; ')}`;
  });
  return [
    `agent ${terminalText(leak.agent)} session ${terminalText(leak.sessionId)}: ${terminalText(leak.why)}`,
    ...lines,
  ].join('\n');
}

export function formatAgentCleaned(cleaned: CleanedLeak): string {
  const stops = (cleaned.agentStops ?? []).map(
    (stop) =>
      `  agent's own stop: ${terminalArgs(stop.command)}: ${stop.result}${stop.detail ? ` (${terminalText(stop.detail)})` : ''}`,
  );
  const processes = cleaned.processes.map(
    (process) => `  ${process.pid}: ${process.result}${process.detail ? ` (${process.detail})` : ''}`,
  );
  return [...stops, ...processes].join('\n');
}
