/**
 * A session's containers as the engine lists them now: those the observer attributed when they
 * were created (strong, from the container store) and those whose compose working dir or bind
 * mounts name the session's directory (weak, judged here from the list). Containers of an ended
 * session still running are its leftovers, like processes.
 */
import {
  type ContainerEvidence,
  type ContainerEvidenceStrength,
  containerEvidenceStrength,
} from '../../containers/container-evidence.js';
import { type ContainerInfo, inspectContainer, listContainers } from '../../containers/engine-api.js';
import { weakContainerEvidence } from '../sessions/container-match.js';
import { forgetStoredContainer, readStoredContainers } from '../sessions/container-store.js';
import type { StoredSession } from '../sessions/store-schema.js';

export interface SessionContainer {
  readonly sessionId: string;
  readonly id: string;
  readonly name: string;
  readonly image: string;
  readonly state: string;
  /** Epoch ms, to the engine's precision (inspect's ns for attributed ones): part of the identity. */
  readonly createdAtMs: number;
  readonly startedAtMs: number | null;
  readonly ports: readonly string[];
  readonly strength: ContainerEvidenceStrength;
  readonly evidence: readonly ContainerEvidence[];
}

/** States in which a container still runs something (what a clean-up would stop). */
export const RUNNING_STATES: ReadonlySet<string> = new Set(['running', 'paused', 'restarting']);

/**
 * Every session's containers, by session id. The list is one call; inspect runs only for the
 * attributed containers (a few per session) to give their start time and exact creation time.
 * A stored attribution whose container the engine no longer has is forgotten.
 */
export async function readSessionContainers(
  stateRoot: string,
  sessions: readonly StoredSession[],
  socketPath: string,
): Promise<Map<string, SessionContainer[]>> {
  const out = new Map<string, SessionContainer[]>();
  if (sessions.length === 0) return out;
  const listed = await listContainers(socketPath, true);
  const byId = new Map(listed.map((c) => [c.id, c]));
  const known = new Set(sessions.map((s) => s.id));
  const stored = new Map<string, { sessionId: string; evidence: ContainerEvidence[]; createdAtMs: number }>();
  for (const record of readStoredContainers(stateRoot)) {
    if (!byId.has(record.id)) {
      forgetStoredContainer(stateRoot, record.id);
      continue;
    }
    if (known.has(record.sessionId))
      stored.set(record.id, {
        sessionId: record.sessionId,
        evidence: [...record.evidence],
        createdAtMs: record.createdAtMs,
      });
  }
  for (const container of listed) {
    const attributed = stored.get(container.id);
    let sessionId = attributed?.sessionId;
    let evidence: ContainerEvidence[] = attributed?.evidence ?? [];
    if (sessionId === undefined) {
      // Weak: only when exactly one session's directory explains it (two would be a guess).
      const hits = sessions
        .map((s) => ({ s, ev: weakContainerEvidence(container, s, s.endedAtMs) }))
        .filter((h) => h.ev.length > 0);
      if (hits.length !== 1) continue;
      sessionId = (hits[0] as (typeof hits)[number]).s.id;
      evidence = (hits[0] as (typeof hits)[number]).ev;
    }
    const strength = containerEvidenceStrength(evidence);
    if (strength === null) continue;
    const exact = await inspectContainer(socketPath, container.id).catch((): ContainerInfo | null => null);
    if (exact === null) continue; // Removed between list and inspect.
    const row: SessionContainer = {
      sessionId,
      id: container.id,
      name: container.name,
      image: container.image,
      state: exact.state,
      createdAtMs: exact.createdAtMs,
      startedAtMs: exact.startedAtMs,
      ports: container.ports,
      strength,
      evidence,
    };
    out.set(sessionId, [...(out.get(sessionId) ?? []), row]);
  }
  return out;
}

/** Containers of ended sessions still running: the sessions' container leftovers. */
export function containerLeftovers(
  bySession: ReadonlyMap<string, readonly SessionContainer[]>,
  sessions: readonly StoredSession[],
): SessionContainer[] {
  const ended = new Set(sessions.filter((s) => s.endedAtMs !== null).map((s) => s.id));
  return [...bySession.entries()]
    .filter(([id]) => ended.has(id))
    .flatMap(([, containers]) => containers.filter((c) => RUNNING_STATES.has(c.state)));
}
