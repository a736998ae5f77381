/**
 * `stale-subagents`: subagent processes (`claude --output-format stream-json … --resume ID`) that
 * nobody reads any more: their parent left the session (they were reparented), or their parent
 * lives but they have used no CPU for `idleSeconds` (measured over the history; without one, idle is
 * unknown and never assumed). Beyond `allowed` of them, the newest `allowed` are kept and the
 * older ones (each with its member descendants) are the alert.
 */
import type { ProcessEntry } from '../../table/types.js';
import type { AlertConfig } from './config.js';
import type { AlertDraft } from './draft.js';
import type { SampleReader } from './samples.js';
import { byAge, descendsFrom, type JudgedSession, setOf } from './session-members.js';
import { idleFor } from './usage-rules.js';

interface Stale {
  readonly entry: ProcessEntry;
  readonly why: 'orphaned' | 'idle';
}

function staleness(
  session: JudgedSession,
  entry: ProcessEntry,
  history: SampleReader,
  idleMs: number,
): Stale['why'] | null {
  const parentInSession = entry.ppid === session.root.pid || session.byPid.has(entry.ppid);
  if (!parentInSession) return 'orphaned';
  return history.memo(entry, `idle:${idleMs}`, (samples) => idleFor(samples, idleMs)) === null ? null : 'idle';
}

export function staleSubagents(
  session: JudgedSession,
  config: AlertConfig['staleSubagents'],
  history: SampleReader,
): AlertDraft[] {
  if (!config.enabled) return [];
  const stale: Stale[] = [];
  for (const { entry, role } of session.members) {
    if (role !== 'subagent') continue;
    const why = staleness(session, entry, history, config.idleSeconds * 1000);
    if (why !== null) stale.push({ entry, why });
  }
  // A stale subagent inside another's set goes with it; it is not counted twice.
  const pids = new Set(stale.map((item) => item.entry.pid));
  const tops = stale.filter((item) => !descendsFrom(session, item.entry.pid, pids));
  if (tops.length <= config.allowed) return [];
  const ordered = [...tops].sort((a, b) => byAge(a.entry, b.entry));
  const alerted = ordered.slice(0, ordered.length - config.allowed);
  const orphaned = tops.filter((item) => item.why === 'orphaned').length;
  const idle = tops.length - orphaned;
  const causes = [
    orphaned > 0 ? `${orphaned} whose parent left the session` : '',
    idle > 0 ? `${idle} idle (no CPU) for ${config.idleSeconds} s under a live parent` : '',
  ].filter((cause) => cause !== '');
  return [
    {
      kind: 'stale-subagents',
      processes: alerted.flatMap((item) => setOf(session, item.entry.pid)),
      why:
        `${tops.length} stale subagents (${causes.join('; ')}), more than the ${config.allowed} allowed; ` +
        `the newest ${config.allowed} are kept, the ${alerted.length} older (pid ${alerted.map((item) => item.entry.pid).join(', ')}) are the alert`,
    },
  ];
}
