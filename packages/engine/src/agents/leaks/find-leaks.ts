/**
 * Leak judgement with evidence. A session whose root is gone leaks its surviving members: those
 * remembered by identity while it lived, their new descendants, and processes whose markers name
 * it; then the trees found from markers alone (marker-leaks.ts). What may never be judged is
 * decided once, in leak-judge.ts. Pure over its inputs, but for how many clients a session's tmux
 * server has (its sockets in /proc, unless the input says).
 */

import type { ProcessEntry } from '../../table/types.js';
import { tmuxClientCount } from '../read/tmux-clients.js';
import { describeHit, sessionKeysOf } from '../rules/match.js';
import type { StoredSession } from '../sessions/store-schema.js';
import {
  type AgentLeak,
  addDescendants,
  buildJudge,
  isEligible,
  isRootGone,
  type Judge,
  type LeakedProcess,
  type LeakInput,
  leaked,
  roleFromArgv,
  startedWithinSession,
} from './leak-judge.js';
import { markerOnlyLeaks } from './marker-leaks.js';

export type { AgentLeak, LeakedProcess, LeakInput } from './leak-judge.js';

/**
 * A session's tmux servers someone is attached to, with everything in their panes: not leftovers
 * (a person is watching that team), claimed so no other judgement takes them either.
 */
function claimWatchedServers(judge: Judge, session: StoredSession): void {
  const { table } = judge.input;
  const clientsOf = judge.input.tmuxClientsOf ?? ((entry: ProcessEntry) => tmuxClientCount(entry.pid));
  for (const member of session.members) {
    if (member.role !== 'tmux-server') continue;
    const entry = table.entries.get(member.pid);
    if (entry === undefined || entry.startTime !== member.startTime) continue;
    const clients = clientsOf(entry);
    // Unknown (unreadable fds) counts as watched: a server is a leftover only when shown unwatched.
    if (clients === 0) continue;
    const stack = [entry.pid];
    while (stack.length > 0) {
      const pid = stack.pop() as number;
      judge.claimed.add(pid);
      stack.push(...(judge.children.get(pid) ?? []));
    }
  }
}

function rememberedLeak(judge: Judge, session: StoredSession): AgentLeak | null {
  const { table, markers } = judge.input;
  const rootText = `${session.agent} root ${session.root.pid} (start ${session.root.startTime})`;
  const found: LeakedProcess[] = [];
  claimWatchedServers(judge, session);
  for (const member of session.members) {
    const entry = table.entries.get(member.pid);
    if (!isEligible(judge, entry) || entry.startTime !== member.startTime) continue;
    if (!startedWithinSession(entry, session)) continue;
    // Remembered as `other` before an exec told more (`/usr/bin/chromium` is a script that execs
    // the browser under the same identity): its argv now says what it is.
    const role = member.role === 'other' ? roleFromArgv(judge, entry) : member.role;
    const team = member.role === 'tmux-server' ? ['no client attached to this team tmux server'] : [];
    found.push(
      leaked(judge, entry, role, [
        `remembered as ${member.role} of session ${session.id}; ${rootText} is gone`,
        ...team,
      ]),
    );
  }
  const keys = new Set(session.sessionKeys);
  for (const [pid, hits] of markers) {
    const named = hits.find((hit) => sessionKeysOf([hit]).some((key) => keys.has(key)));
    const entry = table.entries.get(pid);
    if (named === undefined || !isEligible(judge, entry) || !startedWithinSession(entry, session)) continue;
    // Named by its marker, not remembered: its role comes from its argv like any member's.
    const reason = `marker ${describeHit(named)} names session ${session.id}, whose root is gone`;
    found.push(leaked(judge, entry, roleFromArgv(judge, entry), [reason]));
  }
  addDescendants(judge, found);
  if (found.length === 0) return null;
  return {
    sessionId: session.id,
    agent: session.agent,
    root: session.root,
    why: `${rootText} is gone`,
    processes: found,
  };
}

export function findAgentLeaks(input: LeakInput): AgentLeak[] {
  const judge = buildJudge(input);
  const leaks: AgentLeak[] = [];
  for (const session of input.remembered) {
    if (!isRootGone(input.table, session)) continue;
    const leak = rememberedLeak(judge, session);
    if (leak !== null) leaks.push(leak);
  }
  return [...leaks, ...markerOnlyLeaks(judge)];
}
