/**
 * Agent sessions for the snapshot: each observed session with its live processes as tree nodes
 * (role per member, CPU from the host's own tracker, memory from the read) and their totals, and
 * every leaked member as an orphan of `kind: 'agent'` with its evidence — so the one orphan list
 * (and every leak count drawn from it) includes agent leaks.
 */
import { type AgentLeak, identityKey, type ProcessEntry } from '@treewarden/engine';
import {
  type AgentSessionRow,
  type ListeningSocket,
  MAX_LISTENING_PER_PROCESS,
  type OrphanView,
  type SessionProcess,
  type SessionView,
} from '@treewarden/protocol';
import type { AgentScan } from '../engine/reads.js';
import { type CpuTracker, toProcessNode } from './process-node.js';

export interface AgentViews {
  readonly sessions: readonly SessionView[];
  readonly orphans: readonly OrphanView[];
}

export const NO_AGENT_VIEWS: AgentViews = { sessions: [], orphans: [] };
/**
 * Ended sessions without leaks shown per snapshot (most recent first): the store keeps up to 500
 * for a week, but a snapshot goes out every poll; live and leaking sessions are always shown.
 */
export const MAX_ENDED_SESSIONS_SHOWN = 20;

function nodeOf(
  entry: ProcessEntry,
  role: SessionProcess['role'],
  cpu: ReadonlyMap<string, number>,
  listening: ReadonlyMap<string, readonly ListeningSocket[]>,
): SessionProcess {
  const sockets = (key: string) => listening.get(key)?.slice(0, MAX_LISTENING_PER_PROCESS);
  return { ...toProcessNode(entry, cpu.get(identityKey(entry)), false, sockets), role };
}

/** The live processes a session shows: root and members while it lives, its leaked members once it ended. */
function processesOf(row: AgentSessionRow, scan: AgentScan, cpu: ReadonlyMap<string, number>): SessionProcess[] {
  const live = (pid: number, startTime: string) => {
    const entry = scan.entries.get(pid);
    return entry !== undefined && entry.startTime === startTime && entry.state !== 'Z' ? entry : null;
  };
  const nodes: SessionProcess[] = [];
  const root = row.state === 'live' ? live(row.root.pid, row.root.startTime) : null;
  if (root !== null) nodes.push(nodeOf(root, 'root', cpu, scan.listening));
  const leaked = new Set(row.leaked);
  for (const member of row.members) {
    if (row.state === 'ended' && !leaked.has(member.pid)) continue;
    const entry = live(member.pid, member.startTime);
    if (entry !== null) nodes.push(nodeOf(entry, member.role, cpu, scan.listening));
  }
  return nodes;
}

function sessionView(row: AgentSessionRow, scan: AgentScan, cpu: ReadonlyMap<string, number>): SessionView {
  const processes = processesOf(row, scan, cpu);
  // Members seen for the first time have no CPU yet; the total is that of the known ones, and
  // unknown (absent) while none is known, rather than a 0 nobody measured.
  const known = processes.flatMap((node) => (node.cpuPercent === undefined ? [] : [node.cpuPercent]));
  const rssBytes = processes.reduce((sum, node) => sum + node.rssBytes, 0);
  const cpuPercent = known.reduce((sum, percent) => sum + percent, 0);
  return {
    ...row,
    processes,
    ...(known.length === 0 ? {} : { cpuPercent: Math.round(cpuPercent * 10) / 10 }),
    rssBytes,
  };
}

function leakOrphans(leak: AgentLeak, cpu: ReadonlyMap<string, number>): OrphanView[] {
  return leak.processes.map(({ entry, role, reasons }) => ({
    runId: null,
    leaseId: null,
    kind: 'agent',
    reasons: [leak.why, ...reasons],
    process: toProcessNode(entry, cpu.get(identityKey(entry)), false),
    agent: leak.agent,
    sessionId: leak.sessionId,
    role,
    ...(leak.root === null ? { markersOnly: true } : {}),
  }));
}

/** Live sessions first (newest first), then ended ones (most recently ended first). */
function bySessionOrder(a: SessionView, b: SessionView): number {
  if (a.state !== b.state) return a.state === 'live' ? -1 : 1;
  return (b.endedAt ?? b.startedAt).localeCompare(a.endedAt ?? a.startedAt);
}

/** Live and leaking sessions, then the most recently ended of the rest. */
function shownSessions(sessions: SessionView[]): SessionView[] {
  const quiet = sessions.filter((session) => session.state === 'ended' && session.leaked.length === 0);
  const kept = new Set(quiet.slice(0, MAX_ENDED_SESSIONS_SHOWN));
  return sessions.filter((session) => !quiet.includes(session) || kept.has(session));
}

export function buildAgentViews(scan: AgentScan, cpuTracker: CpuTracker): AgentViews {
  const cpu = cpuTracker.sample(scan.entries, scan.readAtMs);
  return {
    sessions: shownSessions(scan.rows.map((row) => sessionView(row, scan, cpu)).sort(bySessionOrder)),
    orphans: scan.leaks.flatMap((leak) => leakOrphans(leak, cpu)),
  };
}
