/**
 * Stops a session's leftover containers through the engine API: `stop` with a grace (the engine
 * sends the image's stop signal, then SIGKILL), then `kill` if it still runs. Before anything, the
 * container is inspected again and must be the one judged — same id and same creation time — and
 * still running. Only stop and kill: never remove, never touch volumes. Each container the engine
 * was asked about is recorded in the ledger (`container_stop`), like a process kill.
 */
import { inspectContainer, killContainer, stopContainer } from '../../containers/engine-api.js';
import { appendLedgerRecord } from '../../ledger/append.js';
import type { LedgerActor } from '../../ledger/records.js';
import { RUNNING_STATES, type SessionContainer } from './session-containers.js';

export type ContainerCleanResult = 'stopped' | 'killed' | 'gone' | 'changed' | 'not-running' | 'needs-all' | 'failed';

export interface CleanedContainer {
  readonly sessionId: string;
  readonly id: string;
  readonly name: string;
  readonly result: ContainerCleanResult;
  readonly detail: string;
}

export interface ContainerCleanOptions {
  readonly socketPath: string;
  readonly graceSeconds?: number;
  /** Also weakly attributed containers (compose dir, bind mount): a deliberate ask, like marker-only finds. */
  readonly includeWeak: boolean;
  /** Where each stop is recorded; without it nothing is (tests of the stop alone). */
  readonly ledgerFile?: string;
  /** The record's reason word; default `agent_container_clean`. */
  readonly reason?: string;
  readonly actor?: LedgerActor;
}

function record(container: SessionContainer, cleaned: CleanedContainer, options: ContainerCleanOptions): void {
  // A weak find left for `--all` asked nothing of the engine: nothing to record.
  if (options.ledgerFile === undefined || cleaned.result === 'needs-all') return;
  appendLedgerRecord(
    options.ledgerFile,
    {
      kind: 'container_stop',
      reason: options.reason ?? 'agent_container_clean',
      sessionId: container.sessionId,
      containerId: container.id,
      name: container.name,
      image: container.image,
      createdAtMs: container.createdAtMs,
      strength: container.strength,
      result: cleaned.result,
      detail: cleaned.detail.slice(0, 2000),
    },
    options.actor,
  );
}

const DEFAULT_GRACE_SECONDS = 10;

async function cleanOne(
  container: SessionContainer,
  options: ContainerCleanOptions,
): Promise<Omit<CleanedContainer, 'sessionId' | 'id' | 'name'>> {
  if (container.strength === 'weak' && !options.includeWeak)
    return {
      result: 'needs-all',
      detail: `weak evidence only (${container.evidence.map((e) => e.kind).join(', ')}): --all stops it`,
    };
  const now = await inspectContainer(options.socketPath, container.id);
  if (now === null) return { result: 'gone', detail: 'the engine no longer has it' };
  if (now.id !== container.id || now.createdAtMs !== container.createdAtMs)
    return {
      result: 'changed',
      detail: `not the container judged (created ${now.createdAtMs}, judged ${container.createdAtMs})`,
    };
  if (!RUNNING_STATES.has(now.state)) return { result: 'not-running', detail: `state ${now.state}` };
  await stopContainer(options.socketPath, container.id, options.graceSeconds ?? DEFAULT_GRACE_SECONDS);
  const after = await inspectContainer(options.socketPath, container.id);
  if (after === null || !RUNNING_STATES.has(after.state))
    return { result: 'stopped', detail: 'stopped through the engine API' };
  await killContainer(options.socketPath, container.id);
  return { result: 'killed', detail: 'still running after stop: killed through the engine API' };
}

/** One result per container, in order; an engine error fails that container only. */
export async function cleanContainerLeftovers(
  leftovers: readonly SessionContainer[],
  options: ContainerCleanOptions,
): Promise<CleanedContainer[]> {
  const out: CleanedContainer[] = [];
  for (const container of leftovers) {
    const base = { sessionId: container.sessionId, id: container.id, name: container.name };
    let cleaned: CleanedContainer;
    try {
      cleaned = { ...base, ...(await cleanOne(container, options)) };
    } catch (error) {
      cleaned = { ...base, result: 'failed', detail: (error as Error).message };
    }
    record(container, cleaned, options);
    out.push(cleaned);
  }
  return out;
}
