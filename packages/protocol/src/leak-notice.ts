/**
 * What a "new leak" notification says, decided once for every surface that notifies (the desktop
 * app's main process, the browser's Notification API): the leaks that were not in the previous
 * snapshot, grouped by agent session or run. The first snapshot is the baseline (leaks already on
 * screen when the UI opened are not news). Pure.
 */
import type { OrphanView } from './model.js';

/** Lines a notification body names before it summarises the rest. */
export const NOTICE_LINES = 3;

export interface LeakNotice {
  readonly title: string;
  readonly body: string;
  /** Identity keys of the new leaks (a click can open them). */
  readonly keys: readonly string[];
}

export interface LeakNoticeStep {
  /** Every leak key of this snapshot: the next call's `previous`. */
  readonly seen: ReadonlySet<string>;
  readonly notice: LeakNotice | null;
}

function keyOf(orphan: OrphanView): string {
  return `${orphan.process.pid}:${orphan.process.startTime}`;
}

function sourceOf(orphan: OrphanView): string {
  if (orphan.kind === 'agent') return `${orphan.agent ?? 'agent'} session ${orphan.sessionId ?? '?'}`;
  return orphan.runId ? `run ${orphan.runId}` : 'an unknown run';
}

export function nextLeakNotice(previous: ReadonlySet<string> | null, orphans: readonly OrphanView[]): LeakNoticeStep {
  const seen = new Set(orphans.map(keyOf));
  if (previous === null) return { seen, notice: null };
  const fresh = orphans.filter((orphan) => !previous.has(keyOf(orphan)));
  if (fresh.length === 0) return { seen, notice: null };
  const bySource = new Map<string, number>();
  for (const orphan of fresh) bySource.set(sourceOf(orphan), (bySource.get(sourceOf(orphan)) ?? 0) + 1);
  const lines = [...bySource].map(([source, count]) => `${count} from ${source}`);
  const rest = lines.length > NOTICE_LINES ? [`and ${lines.length - NOTICE_LINES} more`] : [];
  return {
    seen,
    notice: {
      title: `Treewarden: ${fresh.length} leaked process${fresh.length === 1 ? '' : 'es'} found`,
      body: [...lines.slice(0, NOTICE_LINES), ...rest].join('\n'),
      keys: fresh.map(keyOf),
    },
  };
}
