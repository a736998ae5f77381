/** The live/leaked counts shown in the tray, the app menu and the window title. */
import type { Snapshot } from '@treewarden/protocol';

export interface Counts {
  readonly live: number;
  readonly leaked: number;
}

export function countsOf(snapshot: Snapshot): Counts {
  return { live: snapshot.counts.live, leaked: snapshot.counts.leaked };
}

export function countsLabel(counts: Counts): string {
  const leaked = counts.leaked === 0 ? 'no leaks' : `${counts.leaked} leaked`;
  return `${counts.live} live · ${leaked}`;
}

export function windowTitle(counts: Counts): string {
  return counts.leaked > 0 ? `Treewarden — ⚠ ${countsLabel(counts)}` : `Treewarden — ${countsLabel(counts)}`;
}
