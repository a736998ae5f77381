/**
 * The alert judgement as the one-shot commands use it (`sessions`, `trim`): the user's thresholds
 * (a bad file is reported and the defaults hold), one observation, no history (usage is judged
 * from the kernel's own counters; idleness needs an observer's history and is never assumed).
 */
import {
  type AgentObservation,
  type AlertConfig,
  directFdReader,
  type JudgedAlert,
  judgeSessionAlerts,
  loadAlertConfig,
} from '@treewarden/engine';
import type { SessionAlert } from '@treewarden/protocol';
import { terminalText, writeText } from '../terminal-text.js';

/** The user's thresholds; a file that cannot be used is named on stderr and the defaults hold. */
export async function alertConfig(stateRoot: string): Promise<AlertConfig> {
  const loaded = loadAlertConfig(stateRoot);
  if (loaded.problem !== undefined)
    await writeText(process.stderr, `treewarden: ${loaded.problem.file}: ${loaded.problem.message}\n`);
  return loaded.config;
}

export function judgeObservation(observation: AgentObservation, config: AlertConfig): JudgedAlert[] {
  return judgeSessionAlerts({
    table: observation.table,
    live: observation.live,
    remembered: observation.sessions,
    config,
    fds: directFdReader(),
    now: Date.now(),
  });
}

/** One readable line per alert, under its session. */
export function alertLine(alert: Pick<SessionAlert, 'kind' | 'pids' | 'why'>): string {
  return `  ALERT ${alert.kind}: pids ${alert.pids.join(' ')}: ${terminalText(alert.why)}`;
}
