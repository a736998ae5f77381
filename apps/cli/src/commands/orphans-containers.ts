/**
 * The container half of `treewarden orphans`: containers attributed to agent sessions that ended,
 * still running. `--clean` stops them through the engine API after re-checking each is the one
 * judged (id and creation time); weakly attributed ones (compose dir, bind mount) need `--all`.
 * Never removes a container or its volumes. With no engine socket, nothing is asked.
 */
import {
  type CleanedContainer,
  cleanContainerLeftovers,
  containerLeftovers,
  findEngineSocket,
  readSessionContainers,
  type SessionContainer,
  type StoredSession,
} from '@treewarden/engine';
import { terminalText } from '../terminal-text.js';
import { inScope, type SessionScope } from './session-scope.js';

export interface ContainerOrphans {
  readonly socketPath: string | null;
  readonly leftovers: readonly SessionContainer[];
  /** Why the engine could not be asked (shown, never fatal: the process half still runs). */
  readonly problem: string | null;
}

export async function findContainerOrphans(
  stateRoot: string,
  sessions: readonly StoredSession[],
  scope: SessionScope,
): Promise<ContainerOrphans> {
  const socketPath = findEngineSocket();
  if (socketPath === null) return { socketPath, leftovers: [], problem: null };
  const scoped = sessions.filter((session) => inScope(scope, session.id));
  try {
    const bySession = await readSessionContainers(stateRoot, scoped, socketPath);
    return { socketPath, leftovers: containerLeftovers(bySession, scoped), problem: null };
  } catch (error) {
    if (nobodyListens(error)) return { socketPath: null, leftovers: [], problem: null };
    return { socketPath, leftovers: [], problem: `container engine at ${socketPath}: ${(error as Error).message}` };
  }
}

/**
 * A socket file nobody listens on is no engine, not a fault: a daemon that stopped or died leaves
 * its socket behind, and every `orphans` would otherwise warn about a Docker nobody runs. What
 * answers badly (a refused permission, a timeout, an error status) is still said.
 */
function nobodyListens(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ECONNREFUSED' || code === 'ENOENT';
}

export function cleanContainerOrphans(
  found: ContainerOrphans,
  options: { readonly graceSeconds: number | undefined; readonly includeWeak: boolean; readonly ledgerFile: string },
): Promise<CleanedContainer[]> {
  if (found.socketPath === null || found.leftovers.length === 0) return Promise.resolve([]);
  return cleanContainerLeftovers(found.leftovers, {
    socketPath: found.socketPath,
    includeWeak: options.includeWeak,
    ledgerFile: options.ledgerFile,
    ...(options.graceSeconds !== undefined ? { graceSeconds: options.graceSeconds } : {}),
  });
}

export function containerJson(container: SessionContainer) {
  return {
    kind: 'container' as const,
    sessionId: container.sessionId,
    id: container.id,
    name: container.name,
    image: container.image,
    state: container.state,
    strength: container.strength,
    evidence: container.evidence.map(({ kind, detail }) => ({ kind, detail })),
  };
}

export function formatContainerOrphan(container: SessionContainer, cleaned: CleanedContainer | undefined): string {
  const head = `container ${terminalText(container.name)} ${container.id.slice(0, 12)} (${terminalText(container.image)}) of ended session ${terminalText(container.sessionId)}: ${container.strength}`;
  const why = `  why: ${terminalText(container.evidence.map((e) => e.detail).join('; '))}`;
  const done = cleaned === undefined ? [] : [`  ${cleaned.result} (${terminalText(cleaned.detail)})`];
  return [head, why, ...done].join('\n');
}
