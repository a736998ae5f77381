/**
 * The SessionEnd reaper, top to bottom: wait (bounded) for the agent to exit; then end, with the
 * revalidated tree kill and its grace, what the session left behind (leftovers.ts); close the
 * session's record with what was ended. Every kill is a ledger record. An agent still running at
 * the bound (a `/clear` or `/resume` ends a session inside a live agent) is left alone: its
 * leftovers become session-known leaks once it exits, for `orphans --clean` and `watch`.
 */
import { z } from 'zod';
import { ancestorPids } from '../../signal/guards.js';
import { readLiveStartTime } from '../../signal/start-time.js';
import { readProcTable } from '../../table/linux-proc.js';
import { identityKey, type ProcessTable } from '../../table/types.js';
import { cleanAgentLeaks } from '../leaks/clean-leaks.js';
import type { AgentLeak } from '../leaks/find-leaks.js';
import { isRootGone } from '../leaks/leak-judge.js';
import { createMarkerReader } from '../read/environ.js';
import { loadAgentRules } from '../rules/rules.js';
import { readSession, readSessions } from '../sessions/session-store.js';
import { type HookCleanup, STORE_ID_PATTERN, type StoredSession } from '../sessions/store-schema.js';
import { closeHookRecord } from './hook-record.js';
import { keptPids } from './kept-trees.js';
import { findSessionLeftovers } from './leftovers.js';
import { waitForExit } from './wait-exit.js';

/** How long the reaper waits for the agent to exit after its SessionEnd hook. */
export const REAPER_AGENT_EXIT_TIMEOUT_MS = 30_000;
/**
 * SIGTERM to SIGKILL for leftovers. The tree kill signals only the top of each leftover tree
 * gracefully, so its children wait out the whole grace: short, so they are gone within the 3 s
 * the issue asks (the bench shows the split).
 */
export const REAPER_GRACE_MS = 1000;
/** The ledger's reason for the reaper's kills. */
export const REAPER_LEDGER_REASON = 'agent_session_end';

const identity = z.object({ pid: z.number().int().positive(), startTime: z.string().min(1).max(64) }).strict();

export const reaperConfigSchema = z
  .object({
    stateRoot: z.string().min(1).max(4096),
    ledgerFile: z.string().min(1).max(4096),
    recordId: z.string().regex(STORE_ID_PATTERN),
    /** The hook's ancestors (the agent and what started it): never targets. */
    chain: z.array(z.number().int().positive()).max(512),
    /** When the SessionEnd hook ran. */
    endedAtMs: z.number().nonnegative(),
    /** Tests shorten the wait; absent: REAPER_AGENT_EXIT_TIMEOUT_MS. */
    exitTimeoutMs: z.number().int().positive().max(REAPER_AGENT_EXIT_TIMEOUT_MS).optional(),
    /** The agent that ran the hook: the reaper acts only once it has exited. */
    root: identity,
    /** When that agent started: the window of its leftovers when the record names another, live agent. */
    rootStartedAtMs: z.number().nonnegative().optional(),
  })
  .strict();

export type ReaperConfig = z.infer<typeof reaperConfigSchema>;

function note(atMs: number, text: string): HookCleanup {
  return { atMs, ended: [], survivors: [], note: text };
}

function liveRootsOf(stateRoot: string, table: ProcessTable, except: string): Set<string> {
  const roots = new Set<string>();
  for (const session of readSessions(stateRoot).sessions)
    if (session.id !== except && !isRootGone(table, session)) roots.add(identityKey(session.root));
  return roots;
}

/** The leak cut into one leak per top-most process (a process whose parent is not in the leak) and its subtree. */
function splitBySubtree(leak: AgentLeak): AgentLeak[] {
  const byPid = new Map(leak.processes.map((process) => [process.entry.pid, process]));
  const topOf = (pid: number): number => {
    let current = pid;
    for (let hops = 0; hops < byPid.size; hops += 1) {
      const parent = byPid.get(current)?.entry.ppid;
      if (parent === undefined || !byPid.has(parent)) break;
      current = parent;
    }
    return current;
  };
  const parts = new Map<number, AgentLeak['processes'][number][]>();
  for (const process of leak.processes) {
    const top = topOf(process.entry.pid);
    parts.set(top, [...(parts.get(top) ?? []), process]);
  }
  return [...parts.values()].map((processes) => ({ ...leak, processes }));
}

/**
 * What the reaper looks for: the record as closed by this end, or, when the record names another
 * agent that still runs (`shared`), this agent's own run within it: its root, its start, and the
 * live agent's root and members spared.
 */
interface ReaperView {
  readonly session: StoredSession;
  readonly spared: { readonly roots: readonly string[]; readonly pids: readonly number[] };
}

function viewOf(config: ReaperConfig, record: StoredSession, now: number, shared: boolean): ReaperView {
  if (!shared) return { session: { ...record, endedAtMs: record.endedAtMs ?? now }, spared: { roots: [], pids: [] } };
  const startedAtMs = Math.max(record.startedAtMs, config.rootStartedAtMs ?? Number.POSITIVE_INFINITY);
  return {
    session: { ...record, root: { ...config.root, args: [] }, startedAtMs, endedAtMs: now },
    spared: { roots: [identityKey(record.root)], pids: record.members.map((member) => member.pid) },
  };
}

async function endLeftovers(config: ReaperConfig, view: ReaperView, now: number): Promise<HookCleanup> {
  const startedAt = performance.now();
  const { session } = view;
  const { rules } = loadAgentRules(config.stateRoot);
  const envKey = session.hook?.envKey ?? null;
  if (envKey === null) return note(now, `${session.agent} puts no session id on its children: nothing to follow`);
  const table = readProcTable();
  const leak = findSessionLeftovers({
    table,
    session,
    rules,
    readMarkers: createMarkerReader(new Set([...rules.markersByName.keys(), envKey])),
    exclude: new Set([
      process.pid,
      ...ancestorPids(),
      ...config.chain,
      ...view.spared.pids,
      ...keptPids(config.stateRoot, table),
    ]),
    liveRoots: new Set([...liveRootsOf(config.stateRoot, table, session.id), ...view.spared.roots]),
    ...(typeof process.getuid === 'function' ? { uid: process.getuid() } : {}),
    now,
  });
  if (leak === null) return note(now, 'nothing carried the session id');
  // One clean-up per leftover subtree, side by side: their graces and death polls overlap
  // instead of adding up (each still re-reads the table and refuses a changed subtree whole).
  const options = { ledgerFile: config.ledgerFile, graceMs: REAPER_GRACE_MS, reason: REAPER_LEDGER_REASON };
  const foundAt = performance.now();
  const cleaned = await Promise.all(splitBySubtree(leak).map((part) => cleanAgentLeaks([part], options)));
  const timing = `found in ${Math.round(foundAt - startedAt)} ms, ended in ${Math.round(performance.now() - foundAt)} ms`;
  const processes = cleaned.flat().flatMap((entry) => entry.processes);
  const ended = processes.filter((p) => p.result === 'killed' || p.result === 'already_gone');
  const survivors = processes.filter((p) => !ended.includes(p));
  const strip = ({ pid, startTime }: { pid: number; startTime: string }) => ({ pid, startTime });
  return {
    atMs: Date.now(),
    ended: ended.map(strip),
    survivors: survivors.map(strip),
    note: `ended ${ended.length}${survivors.length > 0 ? `, ${survivors.length} survived or were refused` : ''} (${timing})`,
  };
}

/** Runs one reaper to its end; resolves with the record as closed (null: no record to close). */
export async function runReaper(config: ReaperConfig): Promise<StoredSession | null> {
  // Since this process started (node start-up and imports included): what the wait began with.
  const readyMs = Math.round(performance.now());
  const exited = await waitForExit(config.root, config.exitTimeoutMs ?? REAPER_AGENT_EXIT_TIMEOUT_MS);
  const now = Date.now();
  const session = readSession(config.stateRoot, config.recordId);
  if (session === null) return null;
  // The record names another agent (a later SessionStart, the same id resumed elsewhere, or a
  // SessionEnd this agent never ran): while that one runs, only this agent's own leftovers are
  // ended, and its record stays as it is.
  const shared = session.root.pid !== config.root.pid || session.root.startTime !== config.root.startTime;
  if (shared) {
    if (!exited || readLiveStartTime(session.root.pid) !== session.root.startTime) return session;
    await endLeftovers(config, viewOf(config, session, now, true), now).catch(() => null);
    return session;
  }
  if (!exited) {
    const text = 'the agent was still running when the reaper stopped waiting: nothing ended';
    return closeHookRecord(config.stateRoot, session, config.endedAtMs, note(now, text));
  }
  let cleanup: HookCleanup;
  try {
    cleanup = await endLeftovers(config, viewOf(config, session, now, false), now);
    cleanup = { ...cleanup, note: `${cleanup.note}; reaper ready ${readyMs} ms after its start` };
  } catch (error) {
    cleanup = note(Date.now(), `clean-up failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return closeHookRecord(config.stateRoot, session, now, cleanup);
}
