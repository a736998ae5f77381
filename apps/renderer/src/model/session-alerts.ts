/**
 * Pile-ups inside live agent sessions as the UI names them: the alerts to show (live sessions only:
 * an ended session's pile is a leak), the processes a trim would signal with what the snapshot knew
 * of each, and the host's per-process answer in words. Pure, so the card, the banner and the
 * dialog say the same thing.
 */
import {
  type AgentRole,
  type CommandResult,
  type Identity,
  SESSION_ALERT_LABELS,
  type SessionAlert,
  type SessionAlertKind,
  type SessionView,
} from '@treewarden/protocol';
import { identityKey } from './identity';

/** One process a trim will signal, as the user saw it when they asked (frozen: the dialog never re-reads it). */
export interface TrimTarget extends Identity {
  /** Wall-clock start, when the snapshot had the process; null when it was already gone from it. */
  startedAtMs: number | null;
  /** Its whole command line (or argv joined), null when the snapshot no longer had it. */
  commandLine: string | null;
  role: AgentRole | 'root' | null;
}

export type TrimProcessResult = CommandResult<'trimSession'>['processes'][number];

export function alertLabel(kind: SessionAlertKind): string {
  return SESSION_ALERT_LABELS[kind];
}

/** A session's alerts, or none once it ended (the host should not send them then; a stale one is not shown). */
export function alertsOf(session: SessionView): SessionAlert[] {
  return session.state === 'live' ? (session.alerts ?? []) : [];
}

export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}

/** Exactly the alert's identities, each with what the snapshot had on it (null where it had nothing). */
export function trimTargetsOf(session: SessionView, alert: SessionAlert): TrimTarget[] {
  const processes = new Map(session.processes.map((node) => [identityKey(node), node]));
  const members = new Map(session.members.map((member) => [identityKey(member), member]));
  return alert.processes.map((identity) => {
    const node = processes.get(identityKey(identity));
    const member = members.get(identityKey(identity));
    return {
      pid: identity.pid,
      startTime: identity.startTime,
      startedAtMs: node?.startedAtMs ?? null,
      commandLine: node?.commandLine || (member ? member.args.join(' ') : null),
      role: node?.role ?? member?.role ?? null,
    };
  });
}

/** The host's answer for one process, in words that never claim more than it said. */
export const TRIM_RESULT_WORDS: Record<TrimProcessResult['result'], string> = {
  killed: 'ended',
  already_gone: 'already gone',
  kill_failed: 'STILL ALIVE: the kill failed',
  refused: 'refused: not signalled',
  error: 'error',
};

export function isTrimEnded(result: TrimProcessResult['result']): boolean {
  return result === 'killed' || result === 'already_gone';
}

export interface TrimSummary {
  ok: boolean;
  title: string;
  /** Targets the host's answer did not name: their state is unknown, and said so. */
  unanswered: TrimTarget[];
}

export function summarizeTrim(targets: readonly TrimTarget[], results: readonly TrimProcessResult[]): TrimSummary {
  const answered = new Set(results.map(identityKey));
  const unanswered = targets.filter((target) => !answered.has(identityKey(target)));
  const ended = results.filter((result) => isTrimEnded(result.result)).length;
  const notEnded = results.length - ended;
  const parts = [`ended ${ended} of ${plural(targets.length, 'process', 'processes')}`];
  if (notEnded > 0) parts.push(`${notEnded} not ended`);
  if (unanswered.length > 0) parts.push(`${unanswered.length} not answered for`);
  return { ok: notEnded === 0 && unanswered.length === 0, title: `Trim: ${parts.join(', ')}`, unanswered };
}
