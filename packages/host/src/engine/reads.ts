/**
 * The reads the host asks of the engine, wherever they run (poll/worker-reader.ts runs them in a
 * worker thread): the whole table or the owned trees, orphans, ports, and one tick of the agent
 * observer. Types only, so the engine port, the snapshot builders and the poller all depend on
 * this one contract instead of on each other.
 */
import type { AgentLeak, JudgedAlert, OrphanScan, PortMap, ProcessEntry, TableReader } from '@treewarden/engine';
import type { AgentSessionRow, ListeningSocket } from '@treewarden/protocol';

export interface AgentScan {
  readonly rows: readonly AgentSessionRow[];
  readonly leaks: readonly AgentLeak[];
  /** Pile-ups in live sessions, with their processes' entries (what `trimSession` ends); the rows carry them too. */
  readonly alerts: readonly JudgedAlert[];
  /** Live roots, members and leaked processes of the rows, by pid (same read as the rows). */
  readonly entries: ReadonlyMap<number, ProcessEntry>;
  readonly readAtMs: number;
  /** Sockets each dev server listens on, by identity key; only dev-server members' sockets are read. */
  readonly listening: ReadonlyMap<string, readonly ListeningSocket[]>;
  /** Rule files or remembered records skipped, with why. */
  readonly problems: readonly { readonly file: string; readonly message: string }[];
}

export interface WorkerReadStats {
  readonly durationMs: number;
  readonly threadId: number;
}

export interface WorkerTableReader extends TableReader {
  /** The same worker, reading lean tables (what the engine's kill revalidates with). */
  readonly lean: TableReader;
  /** The engine's orphan finder, run in the worker; null when it failed or timed out. */
  scanOrphans(stateDir: string): Promise<OrphanScan | null>;
  /** Listening sockets of the given pids (null: every process), read in the worker; null when none could be read. */
  readPorts(pids: readonly number[] | null): Promise<PortMap | null>;
  /** One tick of the agent-session observer, run in the worker; null when it failed or timed out. */
  observeAgents(stateDir: string): Promise<AgentScan | null>;
  /** Requests sent so far, by kind (tests prove no full read happens while nobody watches). */
  counts(): Readonly<Record<PollKind, number>>;
  /** Duration and thread of the last completed read. */
  lastRead(): WorkerReadStats | null;
  close(): Promise<void>;
}

/** The kinds of request the worker answers (worker-reader.ts counts each; poll/messages.ts defines them). */
export type PollKind = 'all' | 'lean' | 'trees' | 'orphans' | 'ports' | 'agents';
