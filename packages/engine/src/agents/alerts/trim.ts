/**
 * Trimming a live session's pile-up: the alerted identities only, each set ended with the engine's
 * revalidated tree kill (start time checked against the live process first; a set whose tree now
 * holds a process the alert did not name is refused whole, before anything is signalled), one
 * ledger record per kill (`session_trim`). The caller judges again right before: `selectTrim`
 * keeps only what is still alerted, narrowed to the identities the user confirmed.
 */
import { SESSION_ALERT_KINDS, type SessionAlertKind } from '@treewarden/protocol';
import { readProcEntry } from '../../table/linux-proc.js';
import { identityKey, type ProcessIdentity } from '../../table/types.js';
import {
  type CleanedLeak,
  type CleanLeaksOptions,
  cleanAgentLeaks,
  type ProcessCleanReport,
} from '../leaks/clean-leaks.js';
import type { AgentLeak } from '../leaks/find-leaks.js';
import type { JudgedAlert } from './judge.js';

export const TRIM_LEDGER_REASON = 'session_trim';
/** Kinds `trim` covers when no kind is named: a budget alert names the whole session, so it is asked for by name. */
export const DEFAULT_TRIM_KINDS: readonly SessionAlertKind[] = ['duplicate-servers', 'stale-subagents', 'runaway-job'];

export interface TrimRequest {
  readonly sessionId: string;
  readonly kind?: SessionAlertKind;
  /** The identities the user saw and confirmed; absent: everything alerted now (the CLI's `--yes`). */
  readonly targets?: readonly ProcessIdentity[];
}

export interface TrimSelection {
  readonly alerts: readonly JudgedAlert[];
  /** Confirmed identities that are not alerted now, with why (nothing is signalled for them). */
  readonly refused: readonly ProcessCleanReport[];
}

/** A kind named; else, with confirmed identities, every kind (they say exactly what ends); else the default kinds. */
function kindsOf(request: TrimRequest): readonly SessionAlertKind[] {
  if (request.kind !== undefined) return [request.kind];
  return request.targets === undefined ? DEFAULT_TRIM_KINDS : SESSION_ALERT_KINDS;
}

/** Why a confirmed identity is not in the fresh alerts: gone, recycled, or no longer alerted. */
export function notAlerted(target: ProcessIdentity): ProcessCleanReport {
  const current = readProcEntry(target.pid);
  if (current === null || current.state === 'Z') return { ...target, result: 'already_gone' };
  if (current.startTime !== target.startTime)
    return {
      ...target,
      result: 'refused',
      detail: `pid ${target.pid} now belongs to a different process (start time ${current.startTime}); nothing was signalled`,
    };
  return {
    ...target,
    result: 'refused',
    detail: 'no longer alerted (the pile-up changed since it was shown); nothing was signalled',
  };
}

export function selectTrim(alerts: readonly JudgedAlert[], request: TrimRequest): TrimSelection {
  const kinds = kindsOf(request);
  const mine = alerts.filter((alert) => alert.sessionId === request.sessionId && kinds.includes(alert.kind));
  if (request.targets === undefined) return { alerts: mine, refused: [] };
  const wanted = new Set(request.targets.map(identityKey));
  const covered = new Set<string>();
  // Each confirmed identity goes with the first alert naming it (a budget alert names what the others do).
  const narrowed = mine
    .map((alert) => {
      const processes = alert.processes.filter(
        (entry) => wanted.has(identityKey(entry)) && !covered.has(identityKey(entry)),
      );
      for (const entry of processes) covered.add(identityKey(entry));
      return { ...alert, processes };
    })
    .filter((alert) => alert.processes.length > 0);
  const refused = request.targets.filter((target) => !covered.has(identityKey(target))).map(notAlerted);
  return { alerts: narrowed, refused };
}

function asLeak(alert: JudgedAlert): AgentLeak {
  return {
    sessionId: alert.sessionId,
    agent: alert.agent,
    root: null,
    why: alert.why,
    processes: alert.processes.map((entry) => ({ entry, role: 'other', reasons: [`${alert.kind}: ${alert.why}`] })),
  };
}

export interface TrimmedAlert {
  readonly alert: JudgedAlert;
  readonly processes: readonly ProcessCleanReport[];
  readonly survivors: readonly number[];
}

/** Ends the selected alerts' processes (one alert after another; each re-reads the table first). */
export async function trimAlerts(
  alerts: readonly JudgedAlert[],
  options: Omit<CleanLeaksOptions, 'reason'> = {},
): Promise<TrimmedAlert[]> {
  const trimmed: TrimmedAlert[] = [];
  for (const alert of alerts) {
    const [cleaned] = (await cleanAgentLeaks([asLeak(alert)], {
      ...options,
      reason: `${TRIM_LEDGER_REASON} ${alert.kind}`,
    })) as [CleanedLeak];
    trimmed.push({ alert, processes: cleaned.processes, survivors: cleaned.survivors });
  }
  return trimmed;
}
