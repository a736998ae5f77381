/** Details of the selected run: command, cwd, env cookie, timeout, outcome, output tails, history. */
import { type ReactNode, useEffect, useMemo } from 'react';
import { loadHistory } from '../actions/actions';
import { formatClock, formatDuration } from '../model/format';
import { formatLimits, formatTrip } from '../model/limits';
import { selectRun } from '../store/selectors';
import { useAppStore } from '../store/store';
import { ClassificationBadge, PhaseBadge } from './badges';
import { KillTimeline } from './kill-timeline';

/** Earlier runs of the same command listed in the details. */
const HISTORY_ROWS = 6;

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

export function RunDetails() {
  const run = useAppStore((state) => selectRun(state, state.selectedRunId));
  const history = useAppStore((state) => state.history);
  const close = useAppStore((state) => state.selectRun);
  const runId = run?.id ?? null;
  const phase = run?.phase;
  // biome-ignore lint/correctness/useExhaustiveDependencies: reload the ledger when the run ends (phase changes)
  useEffect(() => {
    if (runId) void loadHistory();
  }, [runId, phase]);
  const command = run?.command;
  // Snapshots re-render the details every poll; the ledger only changes when it is reloaded.
  const earlier = useMemo(
    () => (history ?? []).filter((entry) => entry.command === command && entry.runId !== runId).slice(0, HISTORY_ROWS),
    [history, command, runId],
  );
  if (!run) return null;
  return (
    <aside className="details" aria-label={`Details of run ${run.id}`}>
      <header className="details-head">
        <h3>{run.id}</h3>
        {run.classification ? (
          <ClassificationBadge classification={run.classification} />
        ) : (
          <PhaseBadge phase={run.phase} />
        )}
        <button type="button" className="btn btn-xs btn-ghost" aria-label="Close details" onClick={() => close(null)}>
          ✕
        </button>
      </header>
      <dl className="kv">
        <Field label="Command">
          <code className="wrap">{[run.command, ...run.args].join(' ')}</code>
        </Field>
        <Field label="Working dir">
          <code className="wrap">{run.cwd}</code>
        </Field>
        <Field label="Env cookie">
          <code className="wrap">{run.cookie}</code>
        </Field>
        <Field label="Timeout">{run.timeoutSeconds} s</Field>
        {run.limits ? <Field label="Limits">{formatLimits(run.limits)}</Field> : null}
        <Field label="Started">{formatClock(run.startedAtMs)}</Field>
        <Field label="Deadline">{formatClock(run.deadlineAtMs)}</Field>
        {run.endedAtMs !== null ? (
          <Field label="Ended">
            {formatClock(run.endedAtMs)} after {formatDuration(run.endedAtMs - run.startedAtMs)}
          </Field>
        ) : null}
        {run.root ? (
          <Field label="Root">
            pid {run.root.pid} · start {run.root.startTime}
          </Field>
        ) : null}
        {run.phase === 'ended' ? (
          <Field label="Outcome">
            {run.classification ?? 'unknown'}
            {run.exitCode !== null ? ` · exit ${run.exitCode}` : ''}
            {run.signal ? ` · ${run.signal}` : ''}
            {run.leakedCount > 0 ? ` · ${run.leakedCount} leaked` : ''}
            {run.limitTrip ? ` · ${formatTrip(run.limitTrip)}` : ''}
          </Field>
        ) : null}
      </dl>
      {run.lastKill ? (
        <section className="details-section">
          <h4>Last kill</h4>
          <KillTimeline report={run.lastKill} />
        </section>
      ) : null}
      <section className="details-section">
        <h4>stdout</h4>
        <pre className="tail">{run.stdoutTail || '(empty)'}</pre>
      </section>
      <section className="details-section">
        <h4>stderr</h4>
        <pre className="tail tail-err">{run.stderrTail || '(empty)'}</pre>
      </section>
      <section className="details-section">
        <h4>Earlier runs of {run.command}</h4>
        {earlier.length === 0 ? (
          <div className="muted">None in the ledger.</div>
        ) : (
          <ul className="mini-history">
            {earlier.map((entry) => (
              <li key={entry.runId}>
                <span className="muted">{formatClock(entry.startedAtMs)}</span> {entry.runId}{' '}
                {entry.classification ? <ClassificationBadge classification={entry.classification} /> : null}
              </li>
            ))}
          </ul>
        )}
      </section>
    </aside>
  );
}
