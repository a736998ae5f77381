/** Remembered sessions and leaks as the rows of the shared contract (`sessions --json`, `orphans --json`). */
import type { AgentLeakGroup, AgentSessionRow, FdUsage, SessionAlert, SessionContainerRow } from '@treewarden/protocol';
import type { AgentLeak } from './leaks/find-leaks.js';
import type { SessionContainer } from './leaks/session-containers.js';
import { foldBrowserTrees, type MemberWithParent } from './sessions/browser-tree.js';
import type { LiveSession } from './sessions/recognise.js';
import type { StoredSession } from './sessions/store-schema.js';

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** Per-member extras a view asks for; each costs reads of /proc, so none unless asked. */
export interface SessionRowOptions {
  /** Members' fds (live members and leaked ones, both alive by identity now). */
  readonly fdsOf?: (pid: number) => FdUsage | null;
}

/**
 * The agent's own id for a session: the newest `AGENT:session:VALUE` key its hooks or its
 * children's markers gave (a resumed or cleared session appends a new one), or null when none did.
 */
export function agentSessionIdOf(session: Pick<StoredSession, 'agent' | 'sessionKeys'>): string | null {
  const prefix = `${session.agent}:session:`;
  for (let index = session.sessionKeys.length - 1; index >= 0; index -= 1) {
    const key = session.sessionKeys[index] as string;
    if (key.startsWith(prefix) && key.length > prefix.length) return key.slice(prefix.length, prefix.length + 160);
  }
  return null;
}

export function sessionRow(
  session: StoredSession,
  live: LiveSession | undefined,
  leak: AgentLeak | undefined,
  alerts?: readonly SessionAlert[],
  options: SessionRowOptions = {},
): AgentSessionRow {
  const leakedPids = new Set(leak?.processes.map((process) => process.entry.pid) ?? []);
  const fdsFor = (pid: number, alive: boolean) => {
    const usage = alive ? options.fdsOf?.(pid) : undefined;
    return usage === undefined || usage === null ? {} : { fds: usage };
  };
  const withParents: MemberWithParent[] =
    live !== undefined
      ? live.members.map(({ entry, role }) => ({
          pid: entry.pid,
          ppid: entry.ppid,
          startTime: entry.startTime,
          role,
          args: [...entry.args],
          ...fdsFor(entry.pid, true),
        }))
      : session.members.map(({ pid, ppid, startTime, role, args }) => ({
          pid,
          ppid,
          startTime,
          role,
          args,
          ...fdsFor(pid, leakedPids.has(pid)),
        }));
  const members = foldBrowserTrees(withParents);
  const agentSessionId = agentSessionIdOf(session);
  return {
    id: session.id,
    ...(agentSessionId === null ? {} : { agentSessionId }),
    agent: session.agent,
    state: session.endedAtMs === null ? 'live' : 'ended',
    root: { pid: session.root.pid, startTime: session.root.startTime },
    cwd: session.cwd,
    startedAt: iso(session.startedAtMs) as string,
    endedAt: iso(session.endedAtMs),
    members,
    leaked: leak?.processes.map((process) => process.entry.pid) ?? [],
    // Judged rows carry their alerts (none once ended: what an ended session holds is a leak).
    ...(alerts === undefined ? {} : { alerts: session.endedAtMs === null ? [...alerts] : [] }),
    ...(session.family !== undefined ? { family: session.family } : {}),
  };
}

export function sessionRows(
  sessions: readonly StoredSession[],
  live: readonly LiveSession[],
  leaks: readonly AgentLeak[],
  /** Alerts by session id (`alertsBySession`); absent: the rows say nothing about alerts. */
  alerts?: ReadonlyMap<string, readonly SessionAlert[]>,
  options: SessionRowOptions = {},
): AgentSessionRow[] {
  const liveById = new Map(live.map((session) => [session.id, session]));
  const leakById = new Map(leaks.map((leak) => [leak.sessionId, leak]));
  return sessions.map((session) =>
    sessionRow(
      session,
      liveById.get(session.id),
      leakById.get(session.id),
      alerts === undefined ? undefined : (alerts.get(session.id) ?? []),
      options,
    ),
  );
}

export function leakGroupRow(leak: AgentLeak): AgentLeakGroup {
  return {
    kind: 'agent',
    agent: leak.agent,
    sessionId: leak.sessionId,
    root: leak.root === null ? null : { pid: leak.root.pid, startTime: leak.root.startTime },
    runId: null,
    leaseId: null,
    why: leak.why,
    processes: leak.processes.map(({ entry, role, reasons }) => ({
      pid: entry.pid,
      startTime: entry.startTime,
      ppid: entry.ppid,
      pgid: entry.pgid,
      sid: entry.sid,
      cwd: entry.cwd,
      args: [...entry.args],
      role,
      reasons: [...reasons],
    })),
  };
}

/** Protocol rows of a session's containers. */
export function sessionContainerRows(containers: readonly SessionContainer[]): SessionContainerRow[] {
  return containers.map((c) => ({
    id: c.id,
    name: c.name,
    image: c.image,
    state: c.state,
    started: c.startedAtMs === null ? null : new Date(c.startedAtMs).toISOString(),
    createdAtMs: Math.max(0, Math.round(c.createdAtMs)),
    ports: [...c.ports],
    strength: c.strength,
    evidence: c.evidence.map((e) => ({ kind: e.kind, detail: e.detail })),
  }));
}

/** The rows with each session's containers (only sessions that have some carry the field). */
export function attachContainers(
  rows: readonly AgentSessionRow[],
  bySession: ReadonlyMap<string, readonly SessionContainer[]>,
): AgentSessionRow[] {
  return rows.map((row) => {
    const containers = bySession.get(row.id);
    return containers === undefined || containers.length === 0
      ? row
      : { ...row, containers: sessionContainerRows(containers) };
  });
}
