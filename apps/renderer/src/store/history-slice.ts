/**
 * Resource history in the store: each snapshot adds a sample per run member and per run (its
 * totals), per agent session (its members' sum) and per session member; each system diff samples
 * the system processes whose group is due (one sample per SYSTEM_SAMPLE_MIN_MS each), and their
 * flags are recomputed then. No reads of their own: only what the host already sent.
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
import { SYSTEM_SAMPLE_GROUPS, SystemSampler } from './system-sampling';
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
  // A flag needs history reaching back its whole window (usage-window.ts windowAnchor), a spin a spinning newest sample.
  // An unknown CPU (NaN) compares false, as the null it stands for did.
  const spinWindowFrom = newestAtMs - settings.cpuMinutes * MS_PER_MINUTE;
  if (ring.timeAt(0) <= spinWindowFrom && ring.cpuAt(newest) >= settings.cpuPercent) return true;
  // A growth needs the rate from the window's anchor to the newest sample at the threshold
  // (memoryGrowthOver's first test; the anchor is the newest sample at or before the window's start).
  const growthWindowFrom = newestAtMs - settings.memoryMinutes * MS_PER_MINUTE;
  if (ring.timeAt(0) > growthWindowFrom) return false;
  // Times only grow along the ring: a binary search for the last index at or before the start.
  let first = 0;
  let last = newest;
  while (first < last) {
    const middle = (first + last + 1) >>> 1;
    if (ring.timeAt(middle) <= growthWindowFrom) first = middle;
    else last = middle - 1;
  }
  const minutes = (newestAtMs - ring.timeAt(first)) / MS_PER_MINUTE;
  return (
    minutes > 0 &&
    (ring.memoryAt(newest) - ring.memoryAt(first)) / BYTES_PER_MIB / minutes >= settings.memoryMibPerMinute
  );
}

/** A ring's flags, null when none (the cheap pre-check first). */
function flagsOfRing(ring: SampleRing, settings: FlagSettings): Flag[] | null {
  if (!mayFlag(ring, settings)) return null;
  const found = flagsOf(ring.samples(), settings);
  return found.length > 0 ? found : null;
}

export function computeFlags(
  book: HistoryBook,
  keys: Iterable<string>,
  settings: FlagSettings,
): ReadonlyMap<string, Flag[]> {
  const flags = new Map<string, Flag[]>();
  for (const key of keys) {
    const ring = book.ring(key);
    const found = ring === undefined ? null : flagsOfRing(ring, settings);
    if (found !== null) flags.set(key, found);
  }
  return flags;
}

export function createHistoryState(): Omit<HistorySlice, 'setFlagSettings'> {
  return {
    runHistory: new HistoryBook(RUN_HISTORY_CAPACITY),
    systemHistory: new HistoryBook(SYSTEM_HISTORY_CAPACITY, SYSTEM_SAMPLE_MIN_MS),
    historyTick: 0,
    systemGroupTicks: Array.from({ length: SYSTEM_SAMPLE_GROUPS }, () => 0),
    systemSampler: new SystemSampler(),
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

/**
 * After a system diff (already applied to `state.system`): rings of processes that left go, and
 * the sample groups that are due (system-sampling.ts) get a sample each and fresh flags.
 */
export function recordSystem(
  state: AppState,
  diff: { full: boolean; upserts: readonly ProcessNode[]; keys: readonly string[]; removed: readonly string[] },
  atMs: number,
): Partial<Pick<AppState, 'systemFlags' | 'systemGroupTicks'>> {
  const { system, systemHistory: book, systemSampler: sampler } = state;
  sampler.noteDiff(diff.full, diff.upserts, diff.keys, diff.removed);
  let flags: Map<string, Flag[]> | null = null;
  const unflag = (key: string) => {
    if (!(flags ?? state.systemFlags).has(key)) return;
    flags ??= new Map(state.systemFlags);
    flags.delete(key);
  };
  if (diff.full) {
    book.retain((key) => system.has(key));
    for (const key of state.systemFlags.keys()) if (!system.has(key)) unflag(key);
  } else
    for (const key of diff.removed) {
      book.forget(key);
      unflag(key);
    }
  const due = sampler.due(atMs);
  if (due.length === 0) return flags === null ? {} : { systemFlags: flags };
  const next: Map<string, Flag[]> = flags ?? new Map(state.systemFlags);
  const ticks = [...state.systemGroupTicks];
  for (const group of due) {
    for (const entry of sampler.members(group).values()) {
      const key = entry.key;
      // Flags are few: only a process flagged before is looked up to clear its flag.
      if (entry.flagged) next.delete(key);
      entry.flagged = false;
      // A zombie has no CPU or memory of its own: its curve ends (a revived reading starts a new one).
      if (isZombie(entry.node)) {
        book.forget(key);
        entry.ring = undefined;
        continue;
      }
      entry.ring ??= book.ringFor(key);
      entry.ring.pushValues(atMs, entry.node.cpuPercent ?? null, entry.node.rssBytes);
      const found = flagsOfRing(entry.ring, state.flagSettings);
      if (found !== null) {
        next.set(key, found);
        entry.flagged = true;
      }
    }
    ticks[group] = (ticks[group] ?? 0) + 1;
  }
  book.noteSampled(atMs);
  return { systemFlags: next, systemGroupTicks: ticks };
}

export function applyFlagSettings(
  state: AppState,
  settings: FlagSettings,
): Pick<AppState, 'flagSettings' | 'systemFlags'> {
  saveFlagSettings(settings);
  const systemFlags = computeFlags(state.systemHistory, state.system.keys(), settings);
  state.systemSampler.noteFlagged(systemFlags);
  return { flagSettings: settings, systemFlags };
}
