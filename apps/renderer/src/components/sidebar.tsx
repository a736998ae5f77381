/**
 * The sidebar: live leases and agent sessions first (a session that leaked stays here too), then
 * everything over folded into a collapsed "Ended" group, so a day of CLI runs does not bury what
 * is live. CLI leases are named by their first run's command and directory, not "cli" each time.
 */
import type { LeaseView, SessionView } from '@treewarden/protocol';
import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { handleListKey } from '../hooks/use-list-keys';
import { isLeaseEnded, isSessionEnded, leaseLabel } from '../model/side-labels';
import { useAppStore } from '../store/store';
import { HolderDot } from './badges';
import { NotifyToggle } from './notify-toggle';
import { SessionList, type SessionSummary, summarizeSession } from './session-list';

interface LeaseSummary {
  id: string;
  name: string;
  label: string;
  holderState: LeaseView['holderState'];
  holderCommand: string;
  runs: number;
  live: number;
  leaked: number;
  ended: boolean;
}

function summarize(lease: LeaseView): LeaseSummary {
  return {
    id: lease.id,
    name: lease.name,
    label: leaseLabel(lease),
    holderState: lease.holderState,
    holderCommand: lease.holderCommand,
    runs: lease.runs.length,
    live: lease.liveCount,
    leaked: lease.leakedCount,
    ended: isLeaseEnded(lease),
  };
}

function sameSummaries<T>(a: T[], b: T[]): boolean {
  return a.length === b.length && a.every((item, index) => JSON.stringify(item) === JSON.stringify(b[index]));
}

/** Summaries change far less often than snapshots arrive; keep the old array when nothing moved. */
function memoSummaries<I, T>(summarizeOne: (item: I) => T): (items: I[] | undefined) => T[] {
  let last: T[] = [];
  return (items) => {
    const next = (items ?? []).map(summarizeOne);
    if (sameSummaries(next, last)) return last;
    last = next;
    return next;
  };
}

const selectLeaseSummaries = memoSummaries(summarize);
const selectSessionSummaries = memoSummaries((session: SessionView) => ({
  ...summarizeSession(session),
  ended: isSessionEnded(session),
}));

function LeaseList({ leases, label }: { leases: LeaseSummary[]; label: string }) {
  const { selectedLeaseId, view } = useAppStore(
    useShallow((state) => ({ selectedLeaseId: state.selectedLeaseId, view: state.view })),
  );
  const selectLease = useAppStore((state) => state.selectLease);
  const setView = useAppStore((state) => state.setView);
  const open = (id: string) => {
    selectLease(id);
    setView('runs');
  };
  return (
    <div
      className="lease-list"
      role="listbox"
      aria-label={label}
      tabIndex={0}
      aria-activedescendant={
        selectedLeaseId && leases.some((lease) => lease.id === selectedLeaseId) ? `lease-${selectedLeaseId}` : undefined
      }
      onKeyDown={(event) =>
        handleListKey(event, {
          keys: leases.map((lease) => lease.id),
          activeKey: selectedLeaseId,
          setActive: selectLease,
          onEnter: open,
        })
      }
    >
      {leases.map((lease) => (
        <div
          key={lease.id}
          id={`lease-${lease.id}`}
          role="option"
          tabIndex={-1}
          aria-selected={lease.id === selectedLeaseId && view === 'runs'}
          className={`lease-item${lease.id === selectedLeaseId ? ' active' : ''}${lease.leaked > 0 ? ' leaky' : ''}`}
          onMouseDown={() => open(lease.id)}
          title={lease.label === lease.name ? lease.holderCommand : `lease ${lease.name} · ${lease.holderCommand}`}
        >
          <div className="lease-line">
            <HolderDot state={lease.holderState} />
            <span className="lease-name">{lease.label}</span>
            {lease.leaked > 0 ? (
              <span className="badge badge-bad" title="Processes still alive after their run ended">
                {lease.leaked} leaked
              </span>
            ) : null}
          </div>
          <div className="lease-sub">
            <span className={`holder holder-${lease.holderState}`}>{lease.holderState}</span>
            <span>·</span>
            <span>
              {lease.runs} run{lease.runs === 1 ? '' : 's'}
            </span>
            <span>·</span>
            <span>{lease.live} live</span>
          </div>
        </div>
      ))}
    </div>
  );
}

function EndedGroup({ leases, sessions }: { leases: LeaseSummary[]; sessions: SessionSummary[] }) {
  const [userOpen, setOpen] = useState(false);
  // What the user is looking at never hides: the group opens while it holds the selection.
  const holdsSelection = useAppStore(
    (state) =>
      (state.view === 'runs' && leases.some((lease) => lease.id === state.selectedLeaseId)) ||
      (state.view === 'sessions' && sessions.some((session) => session.id === state.selectedSessionId)),
  );
  const open = userOpen || holdsSelection;
  const count = leases.length + sessions.length;
  if (count === 0) return null;
  return (
    <section className="side-ended" data-testid="side-ended">
      <button type="button" className="side-head side-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span>{open ? '▾' : '▸'} Ended</span>
        <span className="muted">{count}</span>
      </button>
      {open ? (
        <>
          {leases.length > 0 ? <LeaseList leases={leases} label="Ended leases" /> : null}
          {sessions.length > 0 ? <SessionList sessions={sessions} label="Ended agent sessions" /> : null}
        </>
      ) : null}
    </section>
  );
}

export function Sidebar() {
  const leases = useAppStore((state) => selectLeaseSummaries(state.snapshot?.leases));
  const sessions = useAppStore((state) => selectSessionSummaries(state.snapshot?.sessions));
  const liveLeases = leases.filter((lease) => !lease.ended);
  const liveSessions = sessions.filter((session) => !session.ended);
  return (
    <nav className="sidebar" aria-label="Leases and agent sessions">
      <div className="side-scroll">
        <div className="side-head">
          <span>Leases</span>
          <span className="muted">{liveLeases.length}</span>
        </div>
        {leases.length === 0 ? <div className="side-empty">No leases yet. Start a run to create one.</div> : null}
        {leases.length > 0 && liveLeases.length === 0 ? <div className="side-empty">No live leases.</div> : null}
        {liveLeases.length > 0 ? <LeaseList leases={liveLeases} label="Leases" /> : null}
        <div className="side-head">
          <span>Agent sessions</span>
          <span className="muted">{liveSessions.length}</span>
        </div>
        {liveSessions.length > 0 ? (
          <SessionList sessions={liveSessions} label="Agent sessions" />
        ) : (
          <div className="side-empty">No live agent sessions.</div>
        )}
        <EndedGroup
          leases={leases.filter((lease) => lease.ended)}
          sessions={sessions.filter((session) => session.ended)}
        />
      </div>
      <div className="side-foot">
        <NotifyToggle />
      </div>
    </nav>
  );
}
