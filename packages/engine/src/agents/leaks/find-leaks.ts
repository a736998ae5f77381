/**
 * Leak judgement with evidence. A session whose root is gone leaks its surviving members: those
 * remembered by identity while it lived, their new descendants, and processes whose markers name
 * it; then the trees found from markers alone (marker-leaks.ts). What may never be judged is
 * decided once, in leak-judge.ts. Pure over its inputs, but for how many clients a session's tmux
 * server has (its sockets in /proc, unless the input says).
 */

import { identityKey, type ProcessEntry } from '../../table/types.js';
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
  // A background session over because its daemon died: its own process is left running too.
  const root = table.entries.get(session.root.pid);
  if (session.family?.kind === 'background' && isEligible(judge, root) && root.startTime === session.root.startTime) {
    const daemon = session.family.daemon;
    const reason = `runs background session ${session.id}; its daemon ${daemon.pid} (start ${daemon.startTime}) is gone`;
    found.push(leaked(judge, root, 'agent', [reason]));
  }
  // A dead daemon's background sessions ran in its workers: their processes are the daemon's leak.
  if (session.family?.kind === 'daemon') found.push(...backgroundRootsOf(judge, session));
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

function backgroundRootsOf(judge: Judge, daemon: StoredSession): LeakedProcess[] {
  const found: LeakedProcess[] = [];
  for (const session of judge.input.remembered) {
    if (session.family?.kind !== 'background' || identityKey(session.family.daemon) !== identityKey(daemon.root))
      continue;
    const root = judge.input.table.entries.get(session.root.pid);
    if (!isEligible(judge, root) || root.startTime !== session.root.startTime) continue;
    if (!startedWithinSession(root, daemon)) continue;
    const reason = `ran background session ${session.id} of daemon ${daemon.root.pid} (start ${daemon.root.startTime}), which is gone`;
    found.push(leaked(judge, root, 'agent', [reason]));
  }
  return found;
}

/**
 * A daemon that exited on its own (no session of it still running) within its linger: its
 * workers shut down after it (Claude Code's spare pty host, ~5 s), so they are not leaks yet. A
 * daemon that died with sessions still running was killed: its workers leak at once.
 */
function isLingering(input: LeakInput, session: StoredSession): boolean {
  if (session.family?.kind !== 'daemon' || session.endedAtMs === null) return false;
  const linger = input.daemonLingerMs?.(session.agent) ?? 0;
  if (input.now - session.endedAtMs >= linger) return false;
  const daemon = identityKey(session.root);
  return !input.remembered.some(
    (other) =>
      other.family?.kind === 'background' &&
      identityKey(other.family.daemon) === daemon &&
      isAlive(input.table, other.root.pid, other.root.startTime),
  );
}

function isAlive(table: LeakInput['table'], pid: number, startTime: string): boolean {
  const entry = table.entries.get(pid);
  return entry !== undefined && entry.startTime === startTime && entry.state !== 'Z' && entry.state !== 'X';
}

export function findAgentLeaks(input: LeakInput): AgentLeak[] {
  const judge = buildJudge(input);
  const leaks: AgentLeak[] = [];
  // A dead daemon's records first: its workers, and the sessions they ran, are leaks of the daemon.
  const ordered = [...input.remembered].sort(
    (a, b) => Number(b.family?.kind === 'daemon') - Number(a.family?.kind === 'daemon'),
  );
  for (const session of ordered) {
    if (!isRootGone(input.table, session)) continue;
    if (isLingering(input, session)) {
      // Its workers are still the daemon's while they shut down: claimed, so no other find takes them.
      for (const member of session.members) judge.claimed.add(member.pid);
      continue;
    }
    const leak = rememberedLeak(judge, session);
    if (leak !== null) leaks.push(leak);
  }
  return [...leaks, ...markerOnlyLeaks(judge)];
}
