/** Leases in the sidebar: holder state, run counts and leaked counts; arrow keys move, Enter opens. */
import type { LeaseView } from '@treewarden/protocol';
import { useShallow } from 'zustand/react/shallow';
import { handleListKey } from '../hooks/use-list-keys';
import { useAppStore } from '../store/store';
import { HolderDot } from './badges';

interface LeaseSummary {
  id: string;
  name: string;
  holderState: LeaseView['holderState'];
  holderCommand: string;
  runs: number;
  live: number;
  leaked: number;
}

function summarize(lease: LeaseView): LeaseSummary {
  return {
    id: lease.id,
    name: lease.name,
    holderState: lease.holderState,
    holderCommand: lease.holderCommand,
    runs: lease.runs.length,
    live: lease.liveCount,
    leaked: lease.leakedCount,
  };
}

function sameSummaries(a: LeaseSummary[], b: LeaseSummary[]): boolean {
  return a.length === b.length && a.every((item, index) => JSON.stringify(item) === JSON.stringify(b[index]));
}

let lastSummaries: LeaseSummary[] = [];

/** Summaries change far less often than snapshots arrive; keep the old array when nothing moved. */
function selectSummaries(leases: LeaseView[] | undefined): LeaseSummary[] {
  const next = (leases ?? []).map(summarize);
  if (sameSummaries(next, lastSummaries)) return lastSummaries;
  lastSummaries = next;
  return next;
}

export function Sidebar() {
  const leases = useAppStore((state) => selectSummaries(state.snapshot?.leases));
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
    <nav className="sidebar" aria-label="Leases">
      <div className="side-head">
        <span>Leases</span>
        <span className="muted">{leases.length}</span>
      </div>
      <div
        className="lease-list"
        role="listbox"
        aria-label="Leases"
        tabIndex={0}
        aria-activedescendant={selectedLeaseId ? `lease-${selectedLeaseId}` : undefined}
        onKeyDown={(event) =>
          handleListKey(event, {
            keys: leases.map((lease) => lease.id),
            activeKey: selectedLeaseId,
            setActive: selectLease,
            onEnter: open,
          })
        }
      >
        {leases.length === 0 ? <div className="side-empty">No leases yet. Start a run to create one.</div> : null}
        {leases.map((lease) => (
          <div
            key={lease.id}
            id={`lease-${lease.id}`}
            role="option"
            tabIndex={-1}
            aria-selected={lease.id === selectedLeaseId && view === 'runs'}
            className={`lease-item${lease.id === selectedLeaseId ? ' active' : ''}${lease.leaked > 0 ? ' leaky' : ''}`}
            onMouseDown={() => open(lease.id)}
          >
            <div className="lease-line">
              <HolderDot state={lease.holderState} />
              <span className="lease-name">{lease.name}</span>
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
    </nav>
  );
}
