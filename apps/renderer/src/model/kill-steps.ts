/**
 * One kill-timeline step in words a person reads: which action (with the signal it sent, when it
 * sent one), and why it was sent where the action name alone does not say.
 */
import type { KillReport } from '@treewarden/protocol';

type TimelineEntry = KillReport['timeline'][number];
type TimelineAction = TimelineEntry['action'];

export interface KillStep {
  /** The action as the timeline shows it; `observe` entries of older records that froze the tree read as `stop`. */
  readonly action: TimelineAction;
  readonly label: string;
  /** A sentence for the tooltip; null where the label says it all. */
  readonly explanation: string | null;
  readonly detail: string | undefined;
}

const LABELS: Record<TimelineAction, string> = {
  observe: 'observe',
  SIGTERM: 'SIGTERM',
  stop: 'freeze · SIGSTOP',
  SIGKILL: 'SIGKILL',
  continue: 'resume · SIGCONT',
  verify: 'verify',
  retry: 'retry',
  'fallback-direct': 'fallback-direct',
  refused: 'refused',
};

const EXPLANATIONS: Partial<Record<TimelineAction, string>> = {
  observe: 'Read the process table; nothing was sent.',
  stop: 'Stopped (SIGSTOP) so no process of the tree can fork a new one before the SIGKILL.',
  continue: 'Resumed (SIGCONT) the processes this kill had stopped and could not end, so none is left frozen.',
};

/** Ledger records written before `stop` existed logged the freeze as `observe` with this detail. */
const LEGACY_FREEZE_DETAIL = /^freeze round (\d+): SIGSTOP$/;

export function describeKillStep(entry: TimelineEntry): KillStep {
  const legacyFreeze = entry.action === 'observe' ? LEGACY_FREEZE_DETAIL.exec(entry.detail ?? '') : null;
  const action: TimelineAction = legacyFreeze === null ? entry.action : 'stop';
  return {
    action,
    label: LABELS[action],
    explanation: EXPLANATIONS[action] ?? null,
    detail: legacyFreeze === null ? entry.detail : `freeze round ${legacyFreeze[1]}`,
  };
}
