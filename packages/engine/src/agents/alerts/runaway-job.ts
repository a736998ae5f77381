/**
 * `runaway-job`: a member that spins (CPU at or above `cpuPercent` throughout `cpuSeconds`, from
 * the history, or averaged so over a life at least that long, from the kernel's count) or whose
 * memory keeps growing (the System view's rule over `memorySeconds`). One alert per such member,
 * with its member descendants; a member inside another alerted one's set goes with it.
 */
import type { ProcessEntry } from '../../table/types.js';
import type { AlertConfig } from './config.js';
import type { AlertDraft } from './draft.js';
import type { SampleReader } from './samples.js';
import { commandOf, descendsFrom, type JudgedSession, setOf } from './session-members.js';
import { cpuSpin, lifetimeSpin, memoryGrowth } from './usage-rules.js';

function runawayWhy(
  entry: ProcessEntry,
  config: AlertConfig['runawayJob'],
  history: SampleReader,
  now: number,
): string | null {
  const cpuMs = config.cpuSeconds * 1000;
  // The window rules change only when a sample is added; the kernel's lifetime count is one division.
  const windows = history.memo(
    entry,
    `runaway:${config.cpuPercent}:${cpuMs}:${config.memoryMibPerMinute}:${config.memorySeconds}`,
    (samples) =>
      cpuSpin(samples, config.cpuPercent, cpuMs) ??
      memoryGrowth(samples, config.memoryMibPerMinute, config.memorySeconds * 1000),
  );
  return windows ?? lifetimeSpin(entry, now, config.cpuPercent, cpuMs);
}

export function runawayJobs(
  session: JudgedSession,
  config: AlertConfig['runawayJob'],
  history: SampleReader,
  now: number,
): AlertDraft[] {
  if (!config.enabled) return [];
  const found = new Map<number, string>();
  for (const { entry } of session.members) {
    const why = runawayWhy(entry, config, history, now);
    if (why !== null) found.set(entry.pid, why);
  }
  const pids = new Set(found.keys());
  const drafts: AlertDraft[] = [];
  for (const [pid, why] of found) {
    if (descendsFrom(session, pid, pids)) continue;
    const entry = session.byPid.get(pid)?.entry as ProcessEntry;
    drafts.push({
      kind: 'runaway-job',
      processes: setOf(session, pid),
      why: `pid ${pid} \`${commandOf(entry)}\`: ${why}`,
    });
  }
  return drafts;
}
