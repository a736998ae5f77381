/**
 * `budget`: a session holding more processes or memory than its agent's budget (`budgets` in the
 * config, "*" for any agent). The alert names every member (never the root): trimming it ends
 * them all, so `trim` without `--kind budget` leaves it out.
 */
import type { AlertConfig } from './config.js';
import { budgetFor } from './config.js';
import type { AlertDraft } from './draft.js';
import type { JudgedSession } from './session-members.js';

const BYTES_PER_MIB = 1024 * 1024;

export function sessionBudget(session: JudgedSession, config: AlertConfig): AlertDraft[] {
  const budget = budgetFor(config, session.agent);
  if (session.members.length === 0) return [];
  const processes = session.members.length + 1;
  const memoryMib =
    (session.root.rssBytes + session.members.reduce((sum, { entry }) => sum + Math.max(0, entry.rssBytes), 0)) /
    BYTES_PER_MIB;
  const over: string[] = [];
  if (budget.processes !== undefined && processes > budget.processes)
    over.push(`${processes} processes (budget ${budget.processes})`);
  if (budget.memoryMib !== undefined && memoryMib > budget.memoryMib)
    over.push(`${memoryMib.toFixed(0)} MiB resident (budget ${budget.memoryMib} MiB)`);
  if (over.length === 0) return [];
  return [
    {
      kind: 'budget',
      processes: session.members.map(({ entry }) => entry),
      why: `the ${session.agent} session holds ${over.join(' and ')}; the alert names its ${session.members.length} members, not the agent`,
    },
  ];
}
