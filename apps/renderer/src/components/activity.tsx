/**
 * Outcomes of actions and run endings, newest first. Compact by default: one line with the newest
 * outcome, which expands into the list (newest at the top, scrolled into view when one arrives).
 * After a reload the ledger's recent endings and kills are restored.
 */
import { useEffect, useRef, useState } from 'react';
import { loadActivity } from '../actions/actions';
import { useAppStore } from '../store/store';
import type { Outcome } from '../store/types';
import { ClassificationBadge } from './badges';
import { ClockTime } from './clock-time';
import { KillTimeline } from './kill-timeline';
import { Prose, useProseTitle } from './prose';

function OutcomeItem({ outcome, expanded, onToggle }: { outcome: Outcome; expanded: boolean; onToggle(): void }) {
  const dismiss = useAppStore((state) => state.dismissOutcome);
  const proseTitle = useProseTitle();
  const refused =
    outcome.reports.some((report) => report.result === 'refused') || (!outcome.ok && outcome.kind === 'kill');
  return (
    <li
      className={`outcome ${outcome.ok ? 'outcome-ok' : 'outcome-bad'}${refused ? ' outcome-refused' : ''}${outcome.restored ? ' outcome-restored' : ''}`}
      data-kind={outcome.kind}
    >
      <div className="outcome-head">
        <span className="outcome-time">
          <ClockTime atMs={outcome.atMs} />
        </span>
        <span className={`outcome-icon ${outcome.ok ? 'good' : 'bad'}`} aria-hidden="true">
          {outcome.ok ? '✓' : '✕'}
        </span>
        <button
          type="button"
          className="outcome-title"
          onClick={onToggle}
          aria-expanded={expanded}
          title={proseTitle(outcome.title)}
        >
          <Prose text={outcome.title} />
        </button>
        {outcome.restored ? (
          <span className="muted outcome-source" title="Restored from the ledger after a reload">
            ledger
          </span>
        ) : null}
        {outcome.classification ? <ClassificationBadge classification={outcome.classification} /> : null}
        <button type="button" className="btn btn-xs btn-ghost" aria-label="Dismiss" onClick={() => dismiss(outcome.id)}>
          ✕
        </button>
      </div>
      {outcome.message ? (
        <div className="outcome-message">
          <Prose text={outcome.message} />
        </div>
      ) : null}
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

/** The newest outcome on one line: what the strip shows while the panel is folded. */
function LatestLine({ outcome }: { outcome: Outcome }) {
  const proseTitle = useProseTitle();
  return (
    <span
      className={`activity-latest ${outcome.ok ? 'good' : 'bad'}`}
      data-testid="activity-latest"
      title={proseTitle(outcome.message ?? outcome.title)}
    >
      <span className="outcome-time">
        <ClockTime atMs={outcome.atMs} />
      </span>
      <span className={`outcome-icon ${outcome.ok ? 'good' : 'bad'}`} aria-hidden="true">
        {outcome.ok ? '✓' : '✕'}
      </span>
      <span className="activity-latest-text">
        <Prose text={outcome.title} />
        {outcome.message ? (
          <>
            {' — '}
            <Prose text={outcome.message} />
          </>
        ) : null}
      </span>
      {outcome.classification ? <ClassificationBadge classification={outcome.classification} /> : null}
    </span>
  );
}

export function ActivityPanel() {
  const outcomes = useAppStore((state) => state.outcomes);
  const connected = useAppStore((state) => state.connection.status === 'open');
  const [open, setOpen] = useState(false);
  // The user's own expand/collapse choices; everything else follows EXPANDED_RECENT.
  const [toggled, setToggled] = useState<ReadonlyMap<number, boolean>>(() => new Map());
  const list = useRef<HTMLOListElement>(null);
  const newestId = outcomes[0]?.id ?? null;

  useEffect(() => {
    if (connected) void loadActivity();
  }, [connected]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll when a new outcome arrives (newestId) or the list opens
  useEffect(() => {
    // scrollTop, not scrollTo(): jsdom has no scrolling methods.
    if (list.current) list.current.scrollTop = 0;
  }, [newestId, open]);

  const newest = outcomes[0];
  if (!newest) return null;
  return (
    <section className={`activity${open ? ' open' : ' closed'}`} aria-label="Activity">
      <header className="activity-head">
        <button
          type="button"
          className="btn btn-xs btn-ghost activity-toggle"
          onClick={() => setOpen(!open)}
          aria-expanded={open}
          title={open ? 'Fold the activity list' : 'Show every recent outcome'}
        >
          {open ? '▾' : '▸'} Activity <span className="muted">{outcomes.length}</span>
        </button>
        {open ? null : (
          <button
            type="button"
            className="activity-strip"
            onClick={() => setOpen(true)}
            title="Show every recent outcome"
          >
            <LatestLine outcome={newest} />
          </button>
        )}
      </header>
      {open ? (
        <ol className="outcomes" ref={list}>
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
