/**
 * `fd-hog`: a member holding more than a share of its soft open-files limit, or of the user's
 * inotify watch cap. One alert per such member with its member descendants (a watcher and the
 * child it restarts); a member inside another alerted one's set goes with it. Reads `/proc/PID/fd`
 * of members only, through the caller's reader (the tracker's caches each identity a while).
 */
import type { FdUsage } from '../../table/fd-usage.js';
import type { ProcessEntry } from '../../table/types.js';
import type { AlertConfig } from './config.js';
import type { AlertDraft } from './draft.js';
import { commandOf, descendsFrom, type JudgedSession, setOf } from './session-members.js';

export interface FdReader {
  /** The member's fds now, or null when unreadable (gone, another user's). */
  readonly usageOf: (entry: ProcessEntry) => FdUsage | null;
  /** `fs.inotify.max_user_watches`; null when unknown (then watches are not judged). */
  readonly maxUserWatches: number | null;
}

function percent(part: number, whole: number): string {
  return `${Math.round((part / whole) * 1000) / 10} %`;
}

function hogWhy(usage: FdUsage, config: AlertConfig['fdHog'], maxWatches: number | null): string | null {
  const reasons: string[] = [];
  if (usage.openLimit !== null && usage.open > (usage.openLimit * config.fdPercent) / 100)
    reasons.push(
      `${usage.open} open fds, ${percent(usage.open, usage.openLimit)} of its limit ${usage.openLimit} (alert above ${config.fdPercent} %)`,
    );
  if (maxWatches !== null && usage.inotifyWatches > (maxWatches * config.inotifyPercent) / 100)
    reasons.push(
      `${usage.inotifyWatches} inotify watches, ${percent(usage.inotifyWatches, maxWatches)} of fs.inotify.max_user_watches ${maxWatches} (alert above ${config.inotifyPercent} %)`,
    );
  return reasons.length === 0 ? null : reasons.join('; ');
}

export function fdHogs(session: JudgedSession, config: AlertConfig['fdHog'], reader: FdReader): AlertDraft[] {
  if (!config.enabled) return [];
  const found = new Map<number, string>();
  for (const { entry } of session.members) {
    const usage = reader.usageOf(entry);
    const why = usage === null ? null : hogWhy(usage, config, reader.maxUserWatches);
    if (why !== null) found.set(entry.pid, why);
  }
  const pids = new Set(found.keys());
  const drafts: AlertDraft[] = [];
  for (const [pid, why] of found) {
    if (descendsFrom(session, pid, pids)) continue;
    const entry = session.byPid.get(pid)?.entry as ProcessEntry;
    drafts.push({ kind: 'fd-hog', processes: setOf(session, pid), why: `pid ${pid} \`${commandOf(entry)}\`: ${why}` });
  }
  return drafts;
}
