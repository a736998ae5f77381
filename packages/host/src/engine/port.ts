/**
 * What the host needs from the engine, as one narrow interface. The real binding (binding.ts)
 * maps it onto the engine's leases and guardians, revalidated tree kill, lease registry, orphan
 * finder, ledger and scenarios; tests may inject a port to reproduce what this machine cannot.
 */
import type {
  AgentLeak,
  CleanedContainer,
  CleanedLeak,
  JudgedAlert,
  KillOutcome,
  ProcessEntry,
  ProcessIdentity,
  RunOutcome,
  RunSpec,
  SessionContainer,
  TableReader,
  TrimmedAlert,
} from '@treewarden/engine';
import type {
  ActivityEntry,
  CgroupCapability,
  Classification,
  HistoryEntry,
  HolderState,
  LimitTrip,
  OrphanKind,
  ScenarioInfo,
} from '@treewarden/protocol';
import type { Killer } from '@treewarden/protocol/vocabulary';
import type { AgentScan, WorkerTableReader } from './reads.js';

/** Which path enforces a run's limits and its own cgroup, as its run_start record or outcome says. */
export interface RunEnforcement {
  readonly limitEnforcement?: RunOutcome['limitEnforcement'];
  readonly limitMethods?: RunOutcome['limitMethods'];
  /** The run's own cgroup v2 directory, when it had one. */
  readonly cgroup?: string;
}

/** A run started by the host: the engine supervises it (timeout, tree kill, classification). */
export interface HostRun {
  readonly runId: string;
  readonly leaseId: string;
  readonly spec: RunSpec;
  /** Taken just before the start was asked for: the deadline never shows later than the real one. */
  readonly startedAtMs: number;
  /** The worker's identity (live: null until the guardian reported the spawn, or when it never started). */
  readonly root: ProcessIdentity | null;
  readonly cwd: string;
  /** Value of the run cookie (TREEWARDEN_RUN_ID) every process of the run carries. */
  readonly cookie: string;
  readonly outcome: Promise<RunOutcome>;
  /** Ends the run now (its whole tree), classified `cancelled`; resolves with the outcome. */
  cancel(): Promise<RunOutcome>;
  /** Bounded tails of the output so far. */
  tails(): { readonly stdout: string; readonly stderr: string };
  /** What the run's start record says about its limits and cgroup (null until it is written). */
  enforcement?(): RunEnforcement | null;
}

/** A scenario started under a host lease; its runs are reported through `onRun` as they start. */
export interface HostScenario {
  readonly runId: string;
  readonly done: Promise<void>;
  interrupt(): Promise<void>;
}

/** A lease held by the host itself; its guardian ends the runs if the app dies. */
export interface HostLease {
  readonly id: string;
  readonly name: string;
  readonly holder: ProcessIdentity;
  readonly createdAtMs: number;
  /** True once the guardian died while this host held the lease (the host supervises its runs). */
  readonly guardianLost?: boolean;
  /** Resolves once the guardian reported the run's start (identity known, or the launch failed). */
  startRun(spec: RunSpec): Promise<HostRun>;
  startScenario(name: string, options: ScenarioStartOptions, onRun: (run: HostRun) => void): HostScenario;
  /** Ends every run of the lease and the guardian; returns the kills it took. */
  release(): Promise<readonly KillOutcome[]>;
}

/** A lease someone else holds (a CLI, a test harness), read from the registry. */
export interface ForeignLease {
  readonly id: string;
  readonly name: string;
  readonly holder: ProcessIdentity;
  readonly holderCommand: string;
  readonly holderState: HolderState;
  /** False once the guardian is gone too: nothing supervises the lease's runs any more. */
  readonly guardianAlive: boolean;
  /** The lease file records that the guardian died while the holder lived. */
  readonly guardianLost?: boolean;
  readonly createdAtMs: number;
  readonly runs: readonly ForeignRun[];
}

/** How a run ended, as its lease file or the ledger records it. */
export interface RunEnd {
  readonly endedAtMs: number;
  readonly classification: Classification | null;
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** The failure message, or why the run counts as ended without its supervisor; null if none. */
  readonly reason: string | null;
  /** The ledger's word on who ended it (its timeout, a limit, a person). */
  readonly killedBy: Killer | null;
  /** As recorded, for telling a person's kill from a crash (the host knows its own kills). */
  readonly limit?: LimitTrip;
}

export interface ForeignRun {
  readonly runId: string;
  /** The program and its arguments, from the ledger; else the lease file's joined command line and no args. */
  readonly command: string;
  readonly args: readonly string[];
  /** What Retry would start again (command, args, cwd from the ledger; never the environment); null if unknown. */
  readonly retrySpec: RunSpec | null;
  readonly cwd: string;
  readonly root: ProcessIdentity | null;
  readonly startedAtMs: number;
  /** Null when no record says (files written before timeouts were kept): unknown, never guessed. */
  readonly timeoutSeconds: number | null;
  readonly deadlineAtMs: number | null;
  readonly end: RunEnd | null;
  /** Descendants the run kept on purpose (`--keep-descendants`): no longer the run's, never leaked. */
  readonly kept?: readonly ProcessIdentity[];
  /** From the ledger's run_start: how its limits were enforced, and its cgroup. */
  readonly enforcement?: RunEnforcement;
}

export interface Orphan {
  readonly process: ProcessEntry;
  readonly runId: string | null;
  readonly leaseId: string | null;
  /** `unregistered`: a run cookie this state dir never recorded; ending it takes an explicit ask. */
  readonly kind: OrphanKind;
  readonly reasons: readonly string[];
}

/** Leftover containers as judged at one moment, with the engine socket they were judged through. */
export interface ContainerLeftovers {
  readonly socketPath: string;
  readonly leftovers: readonly SessionContainer[];
}

export interface OrphanScanResult {
  readonly orphans: readonly Orphan[];
  /** Runs whose end was recorded now: their supervisors died and nothing of them is left. */
  readonly settled: readonly { readonly runId: string; readonly reason: string }[];
}

export interface KillRequest {
  readonly runId?: string;
  readonly graceMs?: number;
  readonly reason: string;
  readonly reader: TableReader;
}

/** How a scenario starts: naive (the CLI's `--naive`) and at which demo pace. */
export interface ScenarioStartOptions {
  readonly naive: boolean;
  readonly pace: 'normal' | 'slow';
}

export interface EnginePort {
  /** The state dir this port reads and writes (absent: none, e.g. a test's fake). */
  readonly stateDir?: string;
  /** Missing native capabilities and the like, shown on every snapshot (absent: none). */
  readonly warnings?: readonly string[];
  /** Whether runs can have their own cgroup v2 here, probed once at start (absent: not probed). */
  readonly cgroup?: CgroupCapability;
  openLease(name: string): Promise<HostLease>;
  /** The engine's revalidated tree kill: refuses when the target's identity changed. */
  killTree(target: ProcessIdentity, request: KillRequest): Promise<KillOutcome>;
  /** Leases on record not held by this host (newest first). */
  listForeignLeases(ownLeaseIds: ReadonlySet<string>): readonly ForeignLease[];
  /**
   * Live processes of ended runs and leases (cookie, cwd, recorded identity), found off-thread;
   * then records the end of unsupervised runs with nothing left, unless `stillAlive` says the
   * host still sees one of their processes.
   */
  findOrphans(reader: WorkerTableReader, stillAlive: (runId: string) => boolean): Promise<OrphanScanResult>;
  /** One tick of the agent-session observer (in the worker); absent: this host shows no sessions. */
  observeAgents?(reader: WorkerTableReader): Promise<AgentScan | null>;
  /** The engine's agent clean-up (revalidated tree kill per leaked subtree, recorded in the ledger). */
  cleanAgentLeaks?(leaks: readonly AgentLeak[]): Promise<readonly CleanedLeak[]>;
  /** The engine's trim of live sessions' pile-ups (same kill and refusals, ledger reason `session_trim`). */
  trimSessionAlerts?(alerts: readonly JudgedAlert[]): Promise<readonly TrimmedAlert[]>;
  /**
   * Ended sessions' containers still running, judged now from the container engine (one list, an
   * inspect per attributed container); null where no engine socket is found.
   */
  findContainerLeftovers?(): Promise<ContainerLeftovers | null>;
  /** The engine's container clean-up: re-inspect id and creation time, stop with grace, then kill; recorded in the ledger. */
  stopContainers?(
    scan: ContainerLeftovers,
    leftovers: readonly SessionContainer[],
    options: { readonly includeWeak: boolean; readonly graceSeconds?: number },
  ): Promise<readonly CleanedContainer[]>;
  listScenarios(): readonly ScenarioInfo[];
  readHistory(limit: number): readonly HistoryEntry[];
  /** The ledger's newest run endings and kills (newest first), for the Activity panel. */
  readActivity(limit: number): readonly ActivityEntry[];
}
