/** The host's shared state, handed to the command handlers and the poller. */
import type { ProcessIdentity } from '@treewarden/engine';
import type { ExportSettings, ExportStatus, HostEvent, OrphanView } from '@treewarden/protocol';
import type { EnginePort, HostLease, HostScenario } from './engine/port.js';
import type { AgentScan } from './poll/agent-observer.js';
import type { WorkerTableReader } from './poll/worker-reader.js';
import type { RunRecord } from './run-record.js';
import type { AgentViews } from './snapshot/session-views.js';
import type { SystemRows } from './snapshot/system-rows.js';

/** A lease the host held and released: still shown, with its runs, until the app closes. */
export interface ReleasedLease {
  readonly lease: HostLease;
  readonly releasedAtMs: number;
}

/** The exporter the host runs from its settings (export/export-control.ts); set once the host exists. */
export interface ExportControl {
  status(): ExportStatus;
  /** Saves `settings` in the state dir and restarts (or stops) the exporter with them. */
  apply(settings: ExportSettings): Promise<ExportStatus>;
  close(): Promise<void>;
}

export interface HostContext {
  readonly port: EnginePort;
  readonly reader: WorkerTableReader;
  readonly self: ProcessIdentity;
  readonly selfCommand: string;
  /** Every run shown: own runs and runs of leases others hold. */
  readonly runs: Map<string, RunRecord>;
  /** Held leases by name (the app lease, the scenarios lease, named leases from the UI). */
  readonly leasesByName: Map<string, Promise<HostLease>>;
  readonly released: Map<string, ReleasedLease>;
  /**
   * Runs whose leaks a clean-up is ending right now: not settled as ended until its kill records
   * are in the ledger, so the end says who ended them, not "its last process exited".
   */
  readonly cleaningRuns: Set<string>;
  /** Scenarios still running (interrupted when the host closes). */
  readonly scenarios: Set<HostScenario>;
  /** Clients currently showing the system-wide table. */
  readonly systemWatchers: Set<string>;
  /** Those of them that show the Ports column: only then is every process's port map read. */
  readonly systemPortWatchers: Set<string>;
  orphans: readonly OrphanView[];
  /** The agent observer's last tick (null before the first, or where the port observes none). */
  agentScan: AgentScan | null;
  /** Sessions and agent leaks from that tick, as the snapshot shows them. */
  agentViews: AgentViews;
  /** The system table as last sent to the system view's watchers, updated in place each poll. */
  readonly systemRows: SystemRows;
  pollIntervalMs: number;
  exporter: ExportControl;
  now(): number;
  emit(event: HostEvent): void;
  /** Asks for a poll soon (after a start or a kill), without waiting for the interval. */
  requestPoll(): void;
  /** A run or lease ended: look for leaks at the next poll. */
  requestOrphanScan(): void;
  /** Resolves a lease held by this host, opening it on first use. */
  leaseNamed(name: string): Promise<HostLease>;
  ownLease(leaseId: string): HostLease | null;
}
