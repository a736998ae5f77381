/**
 * What `treewarden hook AGENT` does with one event: SessionStart opens the session's record with
 * the agent's identity (the hook's ancestor); SessionEnd makes sure the record names this agent,
 * then hands off to the detached reaper and returns at once. Other events are ignored. Only
 * the ancestor chain and one store record are read: the hook stays far below its 1 s.
 */

import { readLiveStartTime } from '../../signal/start-time.js';
import type { ProcessEntry } from '../../table/types.js';
import type { AgentRules } from '../rules/rules.js';
import { readSession } from '../sessions/session-store.js';
import type { StoredSession } from '../sessions/store-schema.js';
import { type HookAgent, hookRecordId } from './hook-agents.js';
import { findHookAgent } from './hook-ancestry.js';
import type { HookEvent } from './hook-event.js';
import { type HookStart, openHookRecord } from './hook-record.js';
import type { ReaperConfig } from './run-reaper.js';
import { spawnReaper } from './spawn-reaper.js';

export interface HookContext {
  readonly stateRoot: string;
  readonly ledgerFile: string;
  readonly rules: AgentRules;
  /** Where the ancestor walk starts; default: the hook's parent. */
  readonly startPid?: number;
  readonly now?: number;
  /** Tests shorten the reaper's wait for the agent. */
  readonly reaperExitTimeoutMs?: number;
  readonly spawnReaper?: (config: ReaperConfig) => number;
}

export type HookResult =
  | { readonly kind: 'recorded'; readonly session: StoredSession }
  | { readonly kind: 'reaper'; readonly session: StoredSession; readonly reaperPid: number }
  | { readonly kind: 'ignored'; readonly why: string };

function isSameRoot(session: StoredSession | null, pid: number, startTime: string): boolean {
  return session !== null && session.root.pid === pid && session.root.startTime === startTime;
}

export function handleHookEvent(agent: HookAgent, event: HookEvent, context: HookContext): HookResult {
  const name = event.hook_event_name;
  if (name !== 'SessionStart' && name !== 'SessionEnd') return { kind: 'ignored', why: `${name} is not handled` };
  const now = context.now ?? Date.now();
  const ancestry = findHookAgent(agent.ruleId, context.rules, context.startPid);
  if (ancestry.agent === null) return { kind: 'ignored', why: 'no agent process among the hook ancestors' };
  const root = ancestry.agent;
  const start = { agent, sessionId: event.session_id, root, cwd: event.cwd ?? null, now };
  if (name === 'SessionStart') return { kind: 'recorded', session: openHookRecord(context.stateRoot, start) };
  const { session, config } = prepareSessionEnd(context, start, ancestry.chain);
  const reaperPid = (context.spawnReaper ?? spawnReaper)({
    ...config,
    ...(context.reaperExitTimeoutMs !== undefined ? { exitTimeoutMs: context.reaperExitTimeoutMs } : {}),
  });
  return { kind: 'reaper', session, reaperPid };
}

function isLiveRoot(session: StoredSession | null): session is StoredSession {
  return session !== null && readLiveStartTime(session.root.pid) === session.root.startTime;
}

/**
 * The record a SessionEnd closes, made to name this agent (hooks installed mid-session, or a
 * session resumed where no SessionStart ran: this agent is the one ending), and the reaper's config.
 * A record whose root is another live process is left as it is: that agent still runs (the same
 * session resumed in two terminals, or a SessionEnd sent by something else); the reaper then ends
 * only what this agent left (run-reaper.ts) and never touches the record.
 */
export function prepareSessionEnd(
  context: Pick<HookContext, 'stateRoot' | 'ledgerFile'>,
  start: HookStart,
  chain: readonly ProcessEntry[],
): { session: StoredSession; config: ReaperConfig } {
  const { root } = start;
  const before = readSession(context.stateRoot, hookRecordId(start.agent, start.sessionId));
  const session =
    isSameRoot(before, root.pid, root.startTime) || isLiveRoot(before)
      ? (before as StoredSession)
      : openHookRecord(context.stateRoot, start);
  const config: ReaperConfig = {
    stateRoot: context.stateRoot,
    ledgerFile: context.ledgerFile,
    recordId: session.id,
    chain: chain.map((entry) => entry.pid),
    endedAtMs: start.now,
    root: { pid: root.pid, startTime: root.startTime },
    rootStartedAtMs: root.startedAtMs,
  };
  return { session, config };
}
