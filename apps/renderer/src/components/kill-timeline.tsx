/** The steps of one tree kill: SIGTERM at t, freeze, SIGKILL at t, verified, survivors, or a refusal. */
import type { KillReport } from '@treewarden/protocol';
import { useShallow } from 'zustand/react/shallow';
import { describeKill } from '../actions/actions';
import { formatDuration, formatOffset } from '../model/format';
import { describeKillStep } from '../model/kill-steps';
import { describeStart, findStartedAtMs } from '../model/process-start';
import { useAppStore } from '../store/store';
import { Prose } from './prose';

const REFUSED_HINT =
  'Nothing was signalled. The process you saw is not the one running now (it exited, or its pid was reused), or the host could not prove ownership. Pick the row again from a fresh view.';

function describeStep(entry: KillReport['timeline'][number], detail: string | undefined): string {
  const parts: string[] = [];
  if (entry.groups?.length) parts.push(`groups ${entry.groups.join(', ')}`);
  if (entry.pids?.length)
    parts.push(
      `pids ${entry.pids.slice(0, 12).join(', ')}${entry.pids.length > 12 ? ` +${entry.pids.length - 12}` : ''}`,
    );
  if (detail) parts.push(detail);
  return parts.join(' · ');
}

/** "4242 (started today 15:27:54)" per survivor: the wall clock where the renderer still holds the process. */
function useSurvivorLabels(report: KillReport): string[] {
  return useAppStore(
    useShallow((state) =>
      report.survivors.map(
        (survivor) =>
          `${survivor.pid} (${describeStart(survivor, findStartedAtMs(survivor, state.snapshot, state.system))})`,
      ),
    ),
  );
}

/** `omitError` when the surrounding outcome already shows the same message. */
export function KillTimeline({ report, omitError = false }: { report: KillReport; omitError?: boolean }) {
  const base = report.timeline[0]?.atMs ?? report.startedAtMs;
  const survivors = useSurvivorLabels(report);
  return (
    <div className={`kill kill-${report.result}`} data-kill-result={report.result}>
      <div className="kill-head">
        <span className={`badge badge-kill-${report.result}`}>{report.result.replace('_', ' ')}</span>
        <span className="kill-summary">
          {describeKill(report)} · pid {report.target.pid} · {report.attempts} attempt{report.attempts === 1 ? '' : 's'}{' '}
          · {formatDuration(report.durationMs, { precise: true })}
        </span>
      </div>
      {report.error && !omitError ? (
        <div className="kill-error">
          <Prose text={report.error} />
        </div>
      ) : null}
      {report.result === 'refused' ? <div className="kill-hint">{REFUSED_HINT}</div> : null}
      {report.timeline.length > 0 ? (
        <ol className="timeline">
          {report.timeline.map((entry, index) => {
            const step = describeKillStep(entry);
            return (
              // biome-ignore lint/suspicious/noArrayIndexKey: timeline entries are append-only and never reorder
              <li key={index} className={`tl tl-${step.action}`} data-action={step.action}>
                <span className="tl-at">{formatOffset(entry.atMs - base)}</span>
                <span className="tl-action" title={step.explanation ?? undefined}>
                  {step.label}
                </span>
                <span className="tl-detail">{describeStep(entry, step.detail)}</span>
              </li>
            );
          })}
        </ol>
      ) : null}
      {report.survivors.length > 0 ? <div className="kill-survivors">Survivors: {survivors.join(', ')}</div> : null}
    </div>
  );
}
