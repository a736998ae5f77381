/** A key's resource history from the store's rings, re-read when a new pass was recorded. */
import { useMemo } from 'react';
import type { Sample } from '../model/history';
import { useAppStore } from '../store/store';
import { groupOfKey } from '../store/system-sampling';

export type HistorySource = 'run' | 'system';

export function useSamples(source: HistorySource, key: string | null): Sample[] {
  // The rings are mutated in place; these counters say when to read them again.
  const tick = useAppStore((state) =>
    source === 'run' ? state.historyTick : key === null ? 0 : (state.systemGroupTicks[groupOfKey(key)] ?? 0),
  );
  const book = useAppStore((state) => (source === 'run' ? state.runHistory : state.systemHistory));
  // biome-ignore lint/correctness/useExhaustiveDependencies: tick stands for the ring's contents
  return useMemo(() => (key === null ? [] : (book.ring(key)?.samples() ?? [])), [book, key, tick]);
}
