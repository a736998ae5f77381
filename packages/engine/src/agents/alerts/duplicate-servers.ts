/**
 * `duplicate-servers`: two or more sets of the same MCP server command line alive at once in one
 * session, under the same owner (the agent root, or one subagent: each subagent rightly runs its own
 * servers). A set is a server member whose parent is not a server member, with its member
 * descendants (`npm exec x` → `node …/x`). The newest set is kept; the older sets are the alert.
 */
import { identityKey, type ProcessEntry } from '../../table/types.js';
import { MAX_ANCESTRY_DEPTH } from '../sessions/recognise.js';
import type { AlertDraft } from './draft.js';
import { byAge, commandOf, type JudgedSession, setOf } from './session-members.js';

/** Sets whose owner left (reparented) are grouped apart: never weighed against a live owner's set. */
const ADOPTED = 'adopted';

function isServer(session: JudgedSession, pid: number): boolean {
  return session.byPid.get(pid)?.role === 'mcp-server';
}

/** The agent process that reads the set: the root, or the nearest subagent above it. */
function ownerOf(session: JudgedSession, entry: ProcessEntry, rootKey: string): string {
  let pid = entry.ppid;
  for (let depth = 0; depth < MAX_ANCESTRY_DEPTH; depth += 1) {
    if (pid === session.root.pid) return rootKey;
    const member = session.byPid.get(pid);
    if (member === undefined) return ADOPTED;
    if (member.role === 'subagent') return identityKey(member.entry);
    pid = member.entry.ppid;
  }
  return ADOPTED;
}

function ownerWords(session: JudgedSession, owner: string): string {
  if (owner === ADOPTED) return 'whose parent left the session';
  if (owner === identityKey(session.root)) return `under the agent (pid ${session.root.pid})`;
  return `under subagent pid ${owner.split(':')[0]}`;
}

export function duplicateServers(session: JudgedSession): AlertDraft[] {
  const groups = new Map<string, { owner: string; roots: ProcessEntry[] }>();
  const rootKey = identityKey(session.root);
  for (const { entry, role } of session.members) {
    if (role !== 'mcp-server' || isServer(session, entry.ppid)) continue;
    const owner = ownerOf(session, entry, rootKey);
    const key = `${owner}\u0000${entry.args.join('\u0000')}`;
    const group = groups.get(key) ?? { owner, roots: [] };
    group.roots.push(entry);
    groups.set(key, group);
  }
  const drafts: AlertDraft[] = [];
  for (const { owner, roots } of groups.values()) {
    if (roots.length < 2) continue;
    const ordered = [...roots].sort(byAge);
    const newest = ordered.at(-1) as ProcessEntry;
    const older = ordered.slice(0, -1);
    const processes = older.flatMap((root) => setOf(session, root.pid));
    drafts.push({
      kind: 'duplicate-servers',
      processes,
      why:
        `${roots.length} sets of \`${commandOf(newest)}\` alive ${ownerWords(session, owner)}; ` +
        `the newest (pid ${newest.pid}) is kept, the ${older.length} older (pid ${older.map((root) => root.pid).join(', ')}) are the alert`,
    });
  }
  return drafts;
}
