/** Outcomes of actions and run endings, newest first; the newest one shows its kill timeline. */
import { useState } from 'react';
import { formatClock } from '../model/format';
import { useAppStore } from '../store/store';
import type { Outcome } from '../store/types';
import { ClassificationBadge } from './badges';
import { KillTimeline } from './kill-timeline';

function OutcomeItem({ outcome, expanded, onToggle }: { outcome: Outcome; expanded: boolean; onToggle(): void }) {
  const dismiss = useAppStore((state) => state.dismissOutcome);
  const refused =
    outcome.reports.some((report) => report.result === 'refused') || (!outcome.ok && outcome.kind === 'kill');
  return (
    <li
      className={`outcome ${outcome.ok ? 'outcome-ok' : 'outcome-bad'}${refused ? ' outcome-refused' : ''}`}
      data-kind={outcome.kind}
    >
      <div className="outcome-head">
        <span className="outcome-time">{formatClock(outcome.atMs)}</span>
        <span className={`outcome-icon ${outcome.ok ? 'good' : 'bad'}`} aria-hidden="true">
          {outcome.ok ? '✓' : '✕'}
        </span>
        <button type="button" className="outcome-title" onClick={onToggle} aria-expanded={expanded}>
          {outcome.title}
        </button>
        {outcome.classification ? <ClassificationBadge classification={outcome.classification} /> : null}
        <button type="button" className="btn btn-xs btn-ghost" aria-label="Dismiss" onClick={() => dismiss(outcome.id)}>
          ✕
        </button>
      </div>
      {outcome.message ? <div className="outcome-message">{outcome.message}</div> : null}
      {expanded
        ? outcome.reports.map((report) => (
            <KillTimeline
              key={`${report.target.pid}:${report.startedAtMs}`}
              report={report}
              omitError={report.error === outcome.message}
            />
          ))
        : null}
    </li>
  );
}

/** Among this many newest outcomes, those with kill reports start expanded. */
const EXPANDED_RECENT = 3;

export function ActivityPanel() {
  const outcomes = useAppStore((state) => state.outcomes);
  const [open, setOpen] = useState(true);
  // The user's own expand/collapse choices; everything else follows EXPANDED_BY_DEFAULT.
  const [toggled, setToggled] = useState<ReadonlyMap<number, boolean>>(() => new Map());
  if (outcomes.length === 0) return null;
  return (
    <section className={`activity${open ? '' : ' closed'}`} aria-label="Activity">
      <header className="activity-head">
        <button type="button" className="btn btn-xs btn-ghost" onClick={() => setOpen(!open)} aria-expanded={open}>
          {open ? '▾' : '▸'} Activity
        </button>
        <span className="muted">{outcomes.length}</span>
      </header>
      {open ? (
        <ol className="outcomes">
          {outcomes.map((outcome, index) => {
            // Recent kills show their timeline unless the user chose otherwise.
            const expanded = toggled.get(outcome.id) ?? (index < EXPANDED_RECENT && outcome.reports.length > 0);
            return (
              <OutcomeItem
                key={outcome.id}
                outcome={outcome}
                expanded={expanded}
                onToggle={() => setToggled((previous) => new Map(previous).set(outcome.id, !expanded))}
              />
            );
          })}
        </ol>
      ) : null}
    </section>
  );
}
