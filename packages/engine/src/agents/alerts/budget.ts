/**
 * `budget`: a session holding more processes or memory than its agent's budget (`budgets` in the
 * config, "*" for any agent). The alert names every member (never the root): trimming it ends
 * them all, so `trim` without `--kind budget` leaves it out. A nested agent below the root (a
 * `codex exec` run from the agent's shell) is an agent of its own: neither it nor what it holds
 * (its thread-id children) is counted or named, so trimming the budget never ends another agent.
 */
import type { AlertConfig } from './config.js';
import { budgetFor } from './config.js';
import type { AlertDraft } from './draft.js';
import { type JudgedMember, type JudgedSession, setOf } from './session-members.js';

const BYTES_PER_MIB = 1024 * 1024;

/** The members that are the session's own: not a nested agent, nor anything below one. */
function ownMembers(session: JudgedSession): JudgedMember[] {
  const nested = new Set<number>();
  for (const member of session.members)
    if (member.role === 'subagent') for (const entry of setOf(session, member.entry.pid)) nested.add(entry.pid);
  return session.members.filter((member) => !nested.has(member.entry.pid));
}

export function sessionBudget(session: JudgedSession, config: AlertConfig): AlertDraft[] {
  const budget = budgetFor(config, session.agent);
  const members = ownMembers(session);
  if (members.length === 0) return [];
  const processes = members.length + 1;
  const memoryMib =
    (session.root.rssBytes + members.reduce((sum, { entry }) => sum + Math.max(0, entry.rssBytes), 0)) / BYTES_PER_MIB;
  const over: string[] = [];
  if (budget.processes !== undefined && processes > budget.processes)
    over.push(`${processes} processes (budget ${budget.processes})`);
  if (budget.memoryMib !== undefined && memoryMib > budget.memoryMib)
    over.push(`${memoryMib.toFixed(0)} MiB resident (budget ${budget.memoryMib} MiB)`);
  if (over.length === 0) return [];
  return [
    {
      kind: 'budget',
      processes: members.map(({ entry }) => entry),
      why: `the ${session.agent} session holds ${over.join(' and ')}; the alert names its ${members.length} members, not the agent nor a nested agent`,
    },
  ];
}
