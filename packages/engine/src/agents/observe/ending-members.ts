/**
 * A live session whose root exited is judged on this tick, so it is judged with every member its
 * record holds now, not only those this watcher saw itself. Another observer sharing the store
 * (`treewarden sessions`, the host) may have seen a member this watcher never did: an MCP server
 * the agent started after the watcher's last tick is, once the agent exits, a child of pid 1 with
 * no ancestry left to find it by (and, Codex passing its servers a whitelist of variables, no
 * markers either). Without this its tree is read only on the next tick, after the write of the
 * session's end has folded the other observer's members in: the leftover is reported a tick late.
 */
import { identityKey, type ProcessTable } from '../../table/types.js';
import { isSessionOver, mergeSessionRecords } from '../sessions/remember.js';
import { readSession } from '../sessions/session-store.js';
import type { StoredSession } from '../sessions/store-schema.js';

/**
 * `remembered` with the stored members folded into each live session that `table` shows over, or
 * null when no such record holds a member `remembered` lacks (the usual case: nothing to re-read).
 * Only members are taken: whether the session ended, and the event saying so, stay this watcher's
 * own judgement. A record is read only for a session ending now (once: its end is then written).
 */
export function withStoredMembersOfEnding(
  stateRoot: string,
  remembered: readonly StoredSession[],
  table: ProcessTable,
): StoredSession[] | null {
  let added = false;
  const folded = remembered.map((session) => {
    if (session.endedAtMs !== null || !isSessionOver(table, session)) return session;
    const onDisk = readSession(stateRoot, session.id);
    if (onDisk === null) return session;
    const known = new Set(session.members.map(identityKey));
    if (onDisk.members.every((member) => known.has(identityKey(member)))) return session;
    added = true;
    return { ...session, members: mergeSessionRecords(onDisk, session).members };
  });
  return added ? folded : null;
}
