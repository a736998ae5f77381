/** The store's slices: each owns its part of AppState and the setters that change it. */
import type { KillReport } from '@treewarden/protocol';
import type { StateCreator } from 'zustand';
import { firstLease } from '../model/first-lease';
import { identityKey } from '../model/identity';
import { shareUnchanged } from '../model/share-unchanged';
import { SystemTree } from '../model/system-tree';
import { applyFlagSettings, createHistoryState, recordSnapshot, recordSystem } from './history-slice';
import { applySystemDiffInPlace, type SystemDiff } from './system-diff';
import type {
  ActionsSlice,
  AppState,
  CatalogSlice,
  ConnectionSlice,
  HistorySlice,
  Outcome,
  PrefsSlice,
  SelectionSlice,
  SnapshotSlice,
  SystemSlice,
  ThemePref,
} from './types';

type Slice<T> = StateCreator<AppState, [], [], T>;

/** Outcomes kept in the activity panel; older ones scroll away. */
export const MAX_OUTCOMES = 30;
const THEME_STORAGE_KEY = 'treewarden.theme';

export const createSnapshotSlice: Slice<SnapshotSlice> = (set, get) => ({
  snapshot: null,
  applySnapshot: (incoming) => {
    const { selectedLeaseId, awaitedLease } = get();
    // What reads as before keeps its objects, so selectors of unchanged parts re-render nothing.
    // The snapshot itself is always new: each one is a poll (the leak notices count them).
    const previous = get().snapshot;
    const shared = shareUnchanged(previous, incoming);
    const snapshot = shared === previous ? { ...shared } : shared;
    const leaseStillThere = snapshot.leases.some((lease) => lease.id === selectedLeaseId);
    const stillAwaited =
      !leaseStillThere &&
      awaitedLease !== null &&
      awaitedLease.id === selectedLeaseId &&
      awaitedLease.snapshotsLeft > 0;
    // Keep the user's selection (also one a snapshot has not caught up with yet); when there is
    // none to keep, open on what needs attention.
    set({
      snapshot,
      selectedLeaseId: leaseStillThere || stillAwaited ? selectedLeaseId : (firstLease(snapshot.leases)?.id ?? null),
      awaitedLease:
        stillAwaited && awaitedLease ? { ...awaitedLease, snapshotsLeft: awaitedLease.snapshotsLeft - 1 } : null,
      ...recordSnapshot(get(), snapshot),
    });
  },
});

function nextSystem(state: AppState, diff: SystemDiff): Partial<AppState> {
  // One key string per process, shared by the table, the tree and the history (each hashes it once).
  const keys = diff.upserts.map(identityKey);
  const { zombies, removed } = applySystemDiffInPlace(state.system, diff, state.systemZombies, keys);
  const rowsChanged = state.systemTree.apply(diff, keys);
  return {
    systemVersion: state.systemVersion + 1,
    systemZombies: zombies,
    systemShape: rowsChanged ? state.systemShape + 1 : state.systemShape,
    ...recordSystem(state, { full: diff.full, upserts: diff.upserts, keys, removed }, Date.now()),
  };
}

/** An empty table and tree: both are mutated in place, so a reset needs new ones, not the old state. */
export function createSystemTable(): Pick<SystemSlice, 'system' | 'systemTree' | 'systemZombies'> {
  return { system: new Map(), systemTree: new SystemTree(), systemZombies: 0 };
}

export const createSystemSlice: Slice<SystemSlice> = (set) => ({
  ...createSystemTable(),
  systemVersion: 0,
  systemShape: 0,
  systemWatched: false,
  applySystemDiff: (diff) => set((state) => nextSystem(state, diff)),
  replaceSystem: (processes) =>
    set((state) => nextSystem(state, { type: 'systemDiff', full: true, upserts: processes, removed: [] })),
  setSystemWatched: (systemWatched) => set({ systemWatched }),
});

export const createHistorySlice: Slice<HistorySlice> = (set) => ({
  ...createHistoryState(),
  setFlagSettings: (settings) => set((state) => applyFlagSettings(state, settings)),
});

/** How many snapshots a just-chosen lease may be missing from before the view falls back (~5 s at 1 s). */
export const AWAITED_LEASE_SNAPSHOTS = 5;

function awaited(leaseId: string | null): SelectionSlice['awaitedLease'] {
  return leaseId === null ? null : { id: leaseId, snapshotsLeft: AWAITED_LEASE_SNAPSHOTS };
}

export const createSelectionSlice: Slice<SelectionSlice> = (set) => ({
  selectedLeaseId: null,
  selectedRunId: null,
  selectedProcessKey: null,
  awaitedLease: null,
  selectLease: (selectedLeaseId) =>
    set({ selectedLeaseId, selectedRunId: null, selectedProcessKey: null, awaitedLease: awaited(selectedLeaseId) }),
  selectRun: (selectedRunId, leaseId) =>
    set(
      leaseId === undefined
        ? { selectedRunId }
        : { selectedRunId, selectedLeaseId: leaseId, awaitedLease: awaited(leaseId) },
    ),
  selectProcess: (selectedProcessKey) => set({ selectedProcessKey }),
  selectedSessionId: null,
  selectSession: (selectedSessionId) => set({ selectedSessionId, selectedProcessKey: null }),
});

let nextOutcomeId = 1;

function reportKey(report: KillReport): string {
  return `${report.target.pid}:${report.target.startTime}@${report.startedAtMs}`;
}

function sharesKillReport(existing: Outcome, incoming: Omit<Outcome, 'id' | 'atMs'>): boolean {
  if (existing.reports.length === 0 || incoming.reports.length === 0) return false;
  const keys = new Set(incoming.reports.map(reportKey));
  return existing.reports.some((report) => keys.has(reportKey(report)));
}

export const createActionsSlice: Slice<ActionsSlice> = (set) => ({
  pending: {},
  outcomes: [],
  confirmKill: null,
  confirmClean: null,
  confirmAction: null,
  trim: null,
  beginAction: (key, label) => set((state) => ({ pending: { ...state.pending, [key]: label } })),
  endAction: (key) =>
    set((state) => {
      const { [key]: _done, ...rest } = state.pending;
      return { pending: rest };
    }),
  pushOutcome: (outcome) =>
    set((state) => {
      // The same kill can arrive twice (the action's reply and the host's killOutcome event): keep one.
      const kept = state.outcomes.filter((existing) => !sharesKillReport(existing, outcome));
      return { outcomes: [{ ...outcome, id: nextOutcomeId++, atMs: Date.now() }, ...kept].slice(0, MAX_OUTCOMES) };
    }),
  dismissOutcome: (id) => set((state) => ({ outcomes: state.outcomes.filter((outcome) => outcome.id !== id) })),
  restoreOutcomes: (restored) =>
    set((state) => {
      const seen = new Set(state.outcomes.map((outcome) => `${outcome.atMs}:${outcome.title}`));
      const fresh = restored
        .filter((outcome) => !seen.has(`${outcome.atMs}:${outcome.title}`))
        .map((outcome) => ({ ...outcome, id: nextOutcomeId++, restored: true }));
      const merged = [...state.outcomes, ...fresh].sort((a, b) => b.atMs - a.atMs);
      return { outcomes: merged.slice(0, MAX_OUTCOMES) };
    }),
  askKill: (confirmKill) => set({ confirmKill }),
  askClean: (confirmClean) => set({ confirmClean }),
  askConfirm: (confirmAction) => set({ confirmAction }),
  setTrim: (trim) => set({ trim }),
});

function readStoredTheme(): ThemePref {
  try {
    const stored = globalThis.localStorage?.getItem(THEME_STORAGE_KEY);
    return stored === 'light' || stored === 'dark' ? stored : 'system';
  } catch {
    return 'system'; // storage can be disabled (file:// policies, private windows)
  }
}

/** Below this window width the details overlay the runs instead of sitting beside them (see layout.css). */
export const DETAILS_DOCK_MIN_WIDTH = 1280;

function startsNarrow(): boolean {
  return (
    typeof window !== 'undefined' && typeof window.innerWidth === 'number' && window.innerWidth < DETAILS_DOCK_MIN_WIDTH
  );
}

export const createPrefsSlice: Slice<PrefsSlice> = (set) => ({
  theme: readStoredTheme(),
  detailsFolded: startsNarrow(),
  setDetailsFolded: (detailsFolded) => set({ detailsFolded }),
  view: 'runs',
  startFormOpen: false,
  setTheme: (theme) => {
    try {
      globalThis.localStorage?.setItem(THEME_STORAGE_KEY, theme);
    } catch {
      // not persisted; the choice still holds for this session
    }
    set({ theme });
  },
  setView: (view) => set({ view }),
  setStartFormOpen: (startFormOpen) => set({ startFormOpen }),
  notifyLeaks: false,
  setNotifyLeaks: (notifyLeaks) => set({ notifyLeaks }),
});

export const createConnectionSlice: Slice<ConnectionSlice> = (set) => ({
  connection: { status: 'connecting', message: null, transport: 'none' },
  setConnection: (patch) => set((state) => ({ connection: { ...state.connection, ...patch } })),
});

export const createCatalogSlice: Slice<CatalogSlice> = (set) => ({
  scenarios: null,
  history: null,
  scenarioLaunches: {},
  scenarioPace: 'normal',
  setScenarioPace: (scenarioPace) => set({ scenarioPace }),
  noteScenarioLaunch: (name, naive, runId, pace) =>
    set((state) => ({
      scenarioLaunches: {
        ...state.scenarioLaunches,
        [name]: { ...state.scenarioLaunches[name], [naive ? 'naive' : 'treewarden']: { runId, pace } },
      },
    })),
  setScenarios: (scenarios) => set({ scenarios }),
  setHistory: (history) => set({ history }),
});
