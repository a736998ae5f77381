/**
 * Resource history in the store: each snapshot adds a sample per run member and per run (its
 * totals), per agent session (its members' sum) and per session member, each system diff (at most every SYSTEM_SAMPLE_MIN_MS) one per system process, and the
 * system flags are recomputed then. No reads of their own: only what the host already sent.
 */
import type { ProcessNode, Snapshot } from '@treewarden/protocol';
import { loadFlagSettings, saveFlagSettings } from '../model/flag-settings';
import {
  HistoryBook,
  RUN_HISTORY_CAPACITY,
  type SampleRing,
  SYSTEM_HISTORY_CAPACITY,
  SYSTEM_SAMPLE_MIN_MS,
} from '../model/history';
import { identityKey, isZombie } from '../model/identity';
import { knownCpuSum, type SampleEntry, sessionPass } from '../model/session-samples';
import { type Flag, type FlagSettings, flagsOf } from '../model/trend';
import type { AppState, HistorySlice } from './types';

type Entry = SampleEntry;

const MS_PER_MINUTE = 60_000;
const BYTES_PER_MIB = 1024 * 1024;

export function runHistoryKey(runId: string): string {
  return `run:${runId}`;
}

function* snapshotEntries(snapshot: Snapshot): Generator<Entry> {
  for (const lease of snapshot.leases)
    for (const run of lease.runs) {
      const live = run.processes.filter((node) => !isZombie(node));
      for (const node of live) yield [identityKey(node), node.cpuPercent ?? null, node.rssBytes];
      const memory = live.reduce((sum, node) => sum + node.rssBytes, 0);
      yield [runHistoryKey(run.id), knownCpuSum(live), memory];
    }
}

/**
 * Cheap test first: only a ring whose newest sample could flag is read in full. It reads the
 * ring's numbers in place (no Sample objects): it runs for every process at every system pass.
 */
function mayFlag(ring: SampleRing, settings: FlagSettings): boolean {
  if (ring.size < 2) return false;
  const newest = ring.size - 1;
  const newestAtMs = ring.timeAt(newest);
  // A flag needs history reaching back its whole window (trend.ts windowOf), a spin a spinning newest sample.
  // An unknown CPU (NaN) compares false, as the null it stands for did.
  const spinWindowFrom = newestAtMs - settings.cpuMinutes * MS_PER_MINUTE;
  if (ring.timeAt(0) <= spinWindowFrom && ring.cpuAt(newest) >= settings.cpuPercent) return true;
  // A growth needs the window's first-to-last rate at the threshold (memoryGrowthFlag's first test).
  const growthWindowFrom = newestAtMs - settings.memoryMinutes * MS_PER_MINUTE;
  if (ring.timeAt(0) > growthWindowFrom) return false;
  let first = newest;
  while (first > 0 && ring.timeAt(first - 1) >= growthWindowFrom) first -= 1;
  const minutes = (newestAtMs - ring.timeAt(first)) / MS_PER_MINUTE;
  return (
    minutes > 0 &&
    (ring.memoryAt(newest) - ring.memoryAt(first)) / BYTES_PER_MIB / minutes >= settings.memoryMibPerMinute
  );
}

export function computeFlags(
  book: HistoryBook,
  keys: Iterable<string>,
  settings: FlagSettings,
): ReadonlyMap<string, Flag[]> {
  const flags = new Map<string, Flag[]>();
  for (const key of keys) {
    const ring = book.ring(key);
    if (ring === undefined || !mayFlag(ring, settings)) continue;
    const found = flagsOf(ring.samples(), settings);
    if (found.length > 0) flags.set(key, found);
  }
  return flags;
}

export function createHistoryState(): Omit<HistorySlice, 'setFlagSettings'> {
  return {
    runHistory: new HistoryBook(RUN_HISTORY_CAPACITY),
    systemHistory: new HistoryBook(SYSTEM_HISTORY_CAPACITY, SYSTEM_SAMPLE_MIN_MS),
    historyTick: 0,
    systemHistoryTick: 0,
    flagSettings: loadFlagSettings(),
    systemFlags: new Map(),
  };
}

/** After a snapshot: one pass over runs and agent sessions, in the same book. Returns the state patch. */
export function recordSnapshot(state: AppState, snapshot: Snapshot): Pick<AppState, 'historyTick'> {
  const sessions = sessionPass(snapshot.sessions ?? []);
  state.runHistory.recordPass(snapshot.takenAtMs, [...snapshotEntries(snapshot), ...sessions.entries], sessions.kept);
  return { historyTick: state.historyTick + 1 };
}

/** After a system diff: a system pass when the spacing allows, and then fresh flags. */
export function recordSystem(
  state: AppState,
  system: ReadonlyMap<string, ProcessNode>,
  atMs: number,
): Partial<Pick<AppState, 'systemFlags' | 'systemHistoryTick'>> {
  const recorded = state.systemHistory.recordEach(atMs, (record) => {
    for (const [key, node] of system) if (!isZombie(node)) record(key, node.cpuPercent ?? null, node.rssBytes);
  });
  if (!recorded) return {};
  return {
    systemFlags: computeFlags(state.systemHistory, system.keys(), state.flagSettings),
    systemHistoryTick: state.systemHistoryTick + 1,
  };
}

export function applyFlagSettings(
  state: AppState,
  settings: FlagSettings,
): Pick<AppState, 'flagSettings' | 'systemFlags'> {
  saveFlagSettings(settings);
  return { flagSettings: settings, systemFlags: computeFlags(state.systemHistory, state.system.keys(), settings) };
}
