/**
 * The session store side of hooks: a SessionStart opens (or, on resume, reopens with the new root)
 * the record of the agent's session id; the reaper closes it and notes what it ended. One record
 * per agent session id, so a resumed session is one session, not two.
 */
import type { ProcessEntry } from '../../table/types.js';
import { readSession, writeSession } from '../sessions/session-store.js';
import {
  type HookCleanup,
  MAX_STORED_ARG_CHARS,
  MAX_STORED_ARGS,
  type StoredSession,
} from '../sessions/store-schema.js';
import { type HookAgent, hookRecordId, sessionKeyOf } from './hook-agents.js';

export interface HookStart {
  readonly agent: HookAgent;
  readonly sessionId: string;
  /** The agent's process (the hook's ancestor). */
  readonly root: ProcessEntry;
  readonly cwd: string | null;
  readonly now: number;
}

/**
 * Opens the session's record. An existing record keeps its members and its first start (leftovers
 * of the earlier run stay this session's); a new root replaces the old one, and the end is cleared.
 */
export function openHookRecord(stateRoot: string, start: HookStart): StoredSession {
  const { agent, sessionId, root, now } = start;
  const before = readSession(stateRoot, hookRecordId(agent, sessionId));
  const keys = [...new Set([...(before?.sessionKeys ?? []), sessionKeyOf(agent, sessionId)])].slice(-100);
  const record: StoredSession = {
    version: 1,
    id: hookRecordId(agent, sessionId),
    agent: agent.ruleId,
    root: {
      pid: root.pid,
      startTime: root.startTime,
      args: root.args.slice(0, MAX_STORED_ARGS).map((arg) => arg.slice(0, MAX_STORED_ARG_CHARS)),
    },
    cwd: start.cwd ?? root.cwd,
    startedAtMs: Math.min(
      before?.startedAtMs ?? Number.POSITIVE_INFINITY,
      root.startedAtMs > 0 ? root.startedAtMs : now,
    ),
    lastSeenAtMs: now,
    endedAtMs: null,
    members: before?.members ?? [],
    sessionKeys: keys,
    hook: {
      sessionId,
      envKey: agent.envKey,
      openedAtMs: Math.max(now, (before?.hook?.openedAtMs ?? 0) + 1),
      ...(before?.hook?.cleanup !== undefined ? { cleanup: before.hook.cleanup } : {}),
    },
  };
  return writeSession(stateRoot, record);
}

/** Closes the record (the earliest end wins in the merge) and keeps the reaper's report. */
export function closeHookRecord(
  stateRoot: string,
  record: StoredSession,
  endedAtMs: number,
  cleanup: HookCleanup,
): StoredSession {
  const hook = record.hook;
  const closed: StoredSession = {
    ...record,
    lastSeenAtMs: Math.max(record.lastSeenAtMs, endedAtMs),
    endedAtMs: record.endedAtMs ?? endedAtMs,
    ...(hook !== undefined ? { hook: { ...hook, cleanup } } : {}),
  };
  return writeSession(stateRoot, closed);
}
