import type {
  HistoryEntry,
  Identity,
  KillReport,
  ProcessNode,
  ScenarioInfo,
  SessionAlertKind,
  Snapshot,
} from '@treewarden/protocol';
import type { HistoryBook } from '../model/history';
import type { TrimProcessResult, TrimTarget } from '../model/session-alerts';
import type { SystemTree } from '../model/system-tree';
import type { Flag, FlagSettings } from '../model/trend';
import type { SystemDiff } from './system-diff';
import type { SystemSampler } from './system-sampling';

export interface SnapshotSlice {
  snapshot: Snapshot | null;
  applySnapshot(snapshot: Snapshot): void;
}

export interface SystemSlice {
  /**
   * System-wide table keyed by `pid:startTime`, mutated in place by each diff (a copy of 20,000
   * entries per poll cost more than the rest of the update): subscribe to `systemVersion`.
   */
  system: Map<string, ProcessNode>;
  /** The table's tree, kept up by the same diffs; its rows() change only with `systemShape`. */
  systemTree: SystemTree;
  /** Bumped by every diff (the table changed in place). */
  systemVersion: number;
  /** Bumped only when the tree's rows may change (processes come, go, are reparented, or a parent execs). */
  systemShape: number;
  /** Zombies in `system` (state Z), kept up by each diff. */
  systemZombies: number;
  /** Whether the system view asked the host for the table (watchSystem true). */
  systemWatched: boolean;
  applySystemDiff(diff: SystemDiff): void;
  replaceSystem(processes: ProcessNode[]): void;
  setSystemWatched(watched: boolean): void;
}

export type ViewName = 'runs' | 'sessions' | 'system' | 'scenarios' | 'history';

export interface SelectionSlice {
  selectedLeaseId: string | null;
  selectedRunId: string | null;
  /** Identity key of the highlighted process row (keyboard focus in tree lists). */
  selectedProcessKey: string | null;
  /**
   * A lease just chosen (by the user, or by starting a run in it) that no snapshot has shown yet:
   * kept selected for a few snapshots, so the snapshot in flight does not move the view elsewhere.
   */
  awaitedLease: { readonly id: string; readonly snapshotsLeft: number } | null;
  selectLease(leaseId: string | null): void;
  selectRun(runId: string | null, leaseId?: string): void;
  selectProcess(key: string | null): void;
  /** The agent session the Sessions view shows (its id, as the snapshot names it). */
  selectedSessionId: string | null;
  selectSession(sessionId: string | null): void;
}

export type ActionKind =
  | 'kill'
  | 'retry'
  | 'release'
  | 'clean'
  | 'trim'
  | 'start'
  | 'scenario'
  | 'runEnded'
  | 'settings';

export interface Outcome {
  id: number;
  kind: ActionKind;
  atMs: number;
  ok: boolean;
  title: string;
  /** The host's own words when it refused or failed (shown verbatim). */
  message: string | null;
  classification: string | null;
  reports: KillReport[];
  runId: string | null;
  /** Rebuilt from the ledger after a reload, not seen live by this window. */
  restored?: boolean;
}

export interface KillRequest {
  target: Identity;
  /** What the user saw, repeated in the confirmation so they know exactly what goes. */
  command: string;
  scope: 'tree' | 'subtree';
  runId: string | null;
  /** Wall-clock start of the target, shown instead of the kernel's clock ticks; absent when unknown. */
  startedAtMs?: number;
}

/** A clean-up waiting for confirmation: every leaked process, or those of one run. */
export interface CleanRequest {
  runId: string | null;
}

/** A destructive action other than a single kill, waiting for the user's yes: it says what it will end. */
export interface ConfirmRequest {
  title: string;
  /** What will end, one line each, shown before the user decides. */
  lines: string[];
  confirmLabel: string;
  onConfirm(): void;
}

export type { TrimProcessResult, TrimTarget } from '../model/session-alerts';

/**
 * The Trim dialog: `confirm` lists exactly what will be signalled; `sending` waits for the host;
 * `done` shows the host's answer per process (or its refusal), never a guess.
 */
export interface TrimRequest {
  sessionId: string;
  sessionLabel: string;
  alertId: string;
  kind: SessionAlertKind;
  why: string;
  targets: TrimTarget[];
  phase: 'confirm' | 'sending' | 'done';
  results: TrimProcessResult[] | null;
  /** The host refused the whole trim (its own words). */
  error: string | null;
}

export interface ActionsSlice {
  /** Keys of actions in flight (e.g. `kill:1234:567`), so buttons can show progress. */
  pending: Record<string, string>;
  outcomes: Outcome[];
  confirmKill: KillRequest | null;
  confirmClean: CleanRequest | null;
  confirmAction: ConfirmRequest | null;
  trim: TrimRequest | null;
  beginAction(key: string, label: string): void;
  endAction(key: string): void;
  pushOutcome(outcome: Omit<Outcome, 'id' | 'atMs'>): void;
  dismissOutcome(id: number): void;
  /** Adds ledger lines older than anything live, once each (a reconnect does not repeat them). */
  restoreOutcomes(outcomes: Array<Omit<Outcome, 'id'>>): void;
  askKill(request: KillRequest | null): void;
  askClean(request: CleanRequest | null): void;
  askConfirm(request: ConfirmRequest | null): void;
  setTrim(trim: TrimRequest | null): void;
}

export type ThemePref = 'system' | 'light' | 'dark';

export interface PrefsSlice {
  theme: ThemePref;
  view: ViewName;
  startFormOpen: boolean;
  /** The run details folded to a rail (the default on narrow windows, where it would overlay the runs). */
  detailsFolded: boolean;
  setDetailsFolded(folded: boolean): void;
  setTheme(theme: ThemePref): void;
  setView(view: ViewName): void;
  setStartFormOpen(open: boolean): void;
  /** The user turned on browser notifications for new leaks (never asked for on load). */
  notifyLeaks: boolean;
  setNotifyLeaks(on: boolean): void;
}

export type ConnectionStatus = 'connecting' | 'open' | 'closed';

export interface ConnectionSlice {
  connection: { status: ConnectionStatus; message: string | null; transport: 'electron' | 'websocket' | 'none' };
  setConnection(patch: Partial<ConnectionSlice['connection']>): void;
}

/** The latest launch of a scenario in each mode, so its card can tell the outcome. */
export interface ScenarioLaunches {
  treewarden?: { runId: string; pace: 'normal' | 'slow' };
  naive?: { runId: string; pace: 'normal' | 'slow' };
}

export interface CatalogSlice {
  scenarios: ScenarioInfo[] | null;
  history: HistoryEntry[] | null;
  scenarioLaunches: Record<string, ScenarioLaunches>;
  /** The Scenarios view's pace choice; in the store so a remount of the view (a reconnect) keeps it. */
  scenarioPace: 'normal' | 'slow';
  setScenarioPace(pace: 'normal' | 'slow'): void;
  noteScenarioLaunch(name: string, naive: boolean, runId: string, pace: 'normal' | 'slow'): void;
  setScenarios(scenarios: ScenarioInfo[]): void;
  setHistory(history: HistoryEntry[]): void;
}

export interface HistorySlice {
  /**
   * CPU/memory rings of run and session members (by identity), run totals (`run:<id>`) and
   * session totals (`session:<id>`), one sample per snapshot. Mutated in place — copying thousands of rings per poll would cost more than the
   * curves — so readers subscribe to `historyTick`, bumped after each recorded pass.
   */
  runHistory: HistoryBook;
  /** The system view's rings (one sample per SYSTEM_SAMPLE_MIN_MS), fed by system diffs. */
  systemHistory: HistoryBook;
  historyTick: number;
  /**
   * Per sample group (system-sampling.ts), bumped when the group got its samples: a system row
   * re-reads its ring only when its own group was sampled (about one poll in five).
   */
  systemGroupTicks: readonly number[];
  /** Which system processes the next diffs sample (the pass spread over polls). */
  systemSampler: SystemSampler;
  flagSettings: FlagSettings;
  /** Flags of system processes by identity, recomputed when a system pass is recorded or the thresholds change. */
  systemFlags: ReadonlyMap<string, Flag[]>;
  setFlagSettings(settings: FlagSettings): void;
}

export type AppState = SnapshotSlice &
  HistorySlice &
  SystemSlice &
  SelectionSlice &
  ActionsSlice &
  PrefsSlice &
  ConnectionSlice &
  CatalogSlice;
