/**
 * Agent leaks as the UI names them: which orphans are an agent session's, a one-line description
 * with the evidence, and the lines a clean-up confirmation lists (exactly what will be signalled).
 * Pure, so the banner, the session view and the notifications say the same thing.
 */
import type { AgentRole, Identity, OrphanView } from '@treewarden/protocol';
import { shortenCommandLine } from './format';

export const ROLE_LABELS: Record<AgentRole | 'root', string> = {
  root: 'agent',
  'mcp-server': 'MCP server',
  shell: 'shell',
  'dev-server': 'dev server',
  browser: 'browser',
  'language-server': 'language server',
  watcher: 'watcher',
  subagent: 'subagent',
  teammate: 'teammate',
  'tmux-server': 'tmux server',
  agent: 'agent (relaunched)',
  other: 'other',
};

export function isAgentLeak(orphan: OrphanView): boolean {
  return orphan.kind === 'agent';
}

/** Leaks of remembered sessions (clean-up with one confirmation) vs. trees found from markers alone. */
export function splitAgentLeaks(orphans: readonly OrphanView[]): {
  remembered: OrphanView[];
  markersOnly: OrphanView[];
} {
  const agent = orphans.filter(isAgentLeak);
  return {
    remembered: agent.filter((orphan) => orphan.markersOnly !== true),
    markersOnly: agent.filter((orphan) => orphan.markersOnly === true),
  };
}

export function describeAgentLeak(orphan: OrphanView): string {
  const role = orphan.role ? ROLE_LABELS[orphan.role] : 'process';
  const command = shortenCommandLine(orphan.process.commandLine || orphan.process.command);
  return `pid ${orphan.process.pid} ${role} of ${orphan.agent ?? 'an agent'}: ${command}`;
}

/** Every line the confirmation shows: what will be signalled, then why each one is judged leaked. */
export function agentCleanLines(orphans: readonly OrphanView[]): string[] {
  return orphans.map(
    (orphan) => `${describeAgentLeak(orphan)} — ${orphan.reasons.slice(1).join('; ') || orphan.reasons[0]}`,
  );
}

export function targetsOf(orphans: readonly OrphanView[]): Identity[] {
  return orphans.map(({ process }) => ({ pid: process.pid, startTime: process.startTime }));
}

/** Sessions named in a set of leaks (for "from 2 runs and 1 agent session"). */
export function leakSources(orphans: readonly OrphanView[]): { runs: number; sessions: number } {
  const runs = new Set<string>();
  const sessions = new Set<string>();
  for (const orphan of orphans) {
    if (orphan.kind === 'agent') sessions.add(orphan.sessionId ?? 'unknown session');
    else runs.add(orphan.runId ?? 'unknown run');
  }
  return { runs: runs.size, sessions: sessions.size };
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** "2 runs", "1 agent session", "2 runs and 1 agent session". */
export function describeSources(orphans: readonly OrphanView[]): string {
  const { runs, sessions } = leakSources(orphans);
  const parts = [runs > 0 ? plural(runs, 'run') : null, sessions > 0 ? plural(sessions, 'agent session') : null];
  return parts.filter((part) => part !== null).join(' and ') || '0 runs';
}
