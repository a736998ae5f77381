/**
 * What an agent session adds to the resource history at each snapshot: the sum of CPU and memory
 * over its members (from the processes the snapshot already carries), one sample per member, and
 * which session curves to keep unchanged because the session ended and nothing of it is alive.
 */
import type { SessionProcess, SessionView } from '@treewarden/protocol';
import { identityKey, isZombie } from './identity';

/** One sample for the history book: ring key, CPU % (null: unknown), memory bytes. */
export type SampleEntry = readonly [string, number | null, number];

/**
 * CPU of a set of processes: the sum of the known ones; null while none is known (all just seen),
 * so a total never starts with a 0 nobody measured.
 */
export function knownCpuSum(nodes: Iterable<{ readonly cpuPercent?: number | undefined }>): number | null {
  let sum: number | null = null;
  for (const node of nodes) if (node.cpuPercent !== undefined) sum = (sum ?? 0) + node.cpuPercent;
  return sum;
}

/** A first sample this close after the session's start still shows all of it (one poll, a slow first read). */
export const WHOLE_SESSION_SLACK_MS = 5000;

/** Whether a curve whose first sample is at `firstSampleAtMs` covers a session started at `startedAtMs`. */
export function chartCoversSession(firstSampleAtMs: number, startedAtMs: number): boolean {
  return !Number.isFinite(startedAtMs) || firstSampleAtMs - startedAtMs <= WHOLE_SESSION_SLACK_MS;
}

export function sessionHistoryKey(sessionId: string): string {
  return `session:${sessionId}`;
}

/**
 * The session's processes that count toward its totals: alive, and named by identity as its root
 * or one of its members — a process that only shares a member's pid (the pid was reused) is
 * another process and never adds to the curve. Each identity counts once.
 */
export function countedProcesses(session: SessionView): SessionProcess[] {
  const known = new Set([identityKey(session.root), ...session.members.map(identityKey)]);
  const counted = new Map<string, SessionProcess>();
  for (const node of session.processes) {
    const key = identityKey(node);
    if (known.has(key) && !isZombie(node) && !counted.has(key)) counted.set(key, node);
  }
  return [...counted.values()];
}

/**
 * An ended session none of whose processes is alive: its curve is not "now" any more, so it is
 * kept as it was when the last of it died (while the session is shown) and labelled as such.
 */
export function isCurveFinal(session: SessionView): boolean {
  return session.state === 'ended' && countedProcesses(session).length === 0;
}

export interface SessionPass {
  /** A totals sample per sampled session, then one per counted member. */
  entries: SampleEntry[];
  /** Totals keys of ended sessions with nothing alive: their curves stay as they are. */
  kept: string[];
}

export function sessionPass(sessions: readonly SessionView[]): SessionPass {
  const pass: SessionPass = { entries: [], kept: [] };
  for (const session of sessions) {
    const key = sessionHistoryKey(session.id);
    const members = countedProcesses(session);
    if (session.state === 'ended' && members.length === 0) {
      pass.kept.push(key);
      continue;
    }
    const memory = members.reduce((sum, node) => sum + node.rssBytes, 0);
    pass.entries.push([key, knownCpuSum(members), memory]);
    for (const node of members) pass.entries.push([identityKey(node), node.cpuPercent ?? null, node.rssBytes]);
  }
  return pass;
}
