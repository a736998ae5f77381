/** Messages between the host and its poll worker (structured-cloned; Maps survive the trip). */
import type { OrphanScan, PortMap, ProcessEntry } from '@treewarden/engine';
import type { AgentScan } from '../engine/reads.js';

export type PollRequest =
  /**
   * The whole table. `baseSeq` is the last full-table answer the host applied: when it is the
   * worker's last one, the answer is a delta against it (see TableDelta), otherwise whole.
   */
  | { readonly id: number; readonly kind: 'all'; readonly baseSeq: number }
  /** Identity, parentage, groups and state only (no cmdline/cwd): what a kill revalidates with. */
  | { readonly id: number; readonly kind: 'lean' }
  | { readonly id: number; readonly kind: 'trees'; readonly rootPids: readonly number[] }
  /** The engine's orphan finder: reads every process's environment, so it never runs on the main thread. */
  | { readonly id: number; readonly kind: 'orphans'; readonly stateDir: string }
  /** Listening sockets: of the given pids only (the owned trees), or of every process when `pids` is null. */
  | { readonly id: number; readonly kind: 'ports'; readonly pids: readonly number[] | null }
  /** One tick of the agent-session observer (its focused read; a full one only now and then). */
  | { readonly id: number; readonly kind: 'agents'; readonly stateDir: string };

/**
 * What the host posts to its poll worker: a request, or `end`, which the worker reads between
 * tasks and ends on (it is never terminated from outside: see the engine's native-threads.ts).
 */
export type PollWorkerMessage = PollRequest | { readonly kind: 'end' };

/**
 * A full-table answer as the processes that changed since the table `baseSeq` named (by entry
 * object: the reader keeps an unchanged process's entry) and the pids that are gone. Most
 * processes sleep between polls, so this spares the main thread the structured clone of every
 * entry each poll (~9 ms at 5,000 processes here), and the host keeps its own entry objects for
 * unchanged processes, which lets what it builds from them skip them too.
 */
export interface TableDelta {
  readonly seq: number;
  /** null: `changed` is the whole table. */
  readonly baseSeq: number | null;
  readonly changed: ReadonlyMap<number, ProcessEntry>;
  readonly removed: readonly number[];
}

export type PollResponse =
  | {
      readonly id: number;
      readonly ok: true;
      readonly entries: ReadonlyMap<number, ProcessEntry>;
      readonly readAtMs: number;
      /** Time the read took inside the worker (for the UI's "poll cost" and for tests). */
      readonly durationMs: number;
      /** The worker's thread id, so tests can prove the read happened off the main thread. */
      readonly threadId: number;
    }
  | {
      readonly id: number;
      readonly ok: true;
      readonly delta: TableDelta;
      readonly readAtMs: number;
      readonly durationMs: number;
      readonly threadId: number;
    }
  | {
      readonly id: number;
      readonly ok: true;
      readonly orphans: OrphanScan;
      readonly durationMs: number;
      readonly threadId: number;
    }
  | {
      readonly id: number;
      readonly ok: true;
      /** Null: no map could be read this time (the reader yields none rather than a partial one). */
      readonly ports: PortMap | null;
      readonly durationMs: number;
      readonly threadId: number;
    }
  | {
      readonly id: number;
      readonly ok: true;
      readonly agents: AgentScan;
      readonly durationMs: number;
      readonly threadId: number;
    }
  | { readonly id: number; readonly ok: false; readonly error: string };
