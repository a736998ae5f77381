/** The main area of the Runs tab: the selected lease's header and its runs. */

import type { LeaseView as LeaseModel } from '@treewarden/protocol';
import { requestReleaseLease } from '../actions/actions';
import { shortenCommandLine } from '../model/format';
import { selectLease } from '../store/selectors';
import { useAppStore } from '../store/store';
import { HolderDot } from './badges';
import { ClockTime } from './clock-time';
import { EmptyState } from './empty-state';
import { RunCard } from './run-card';

/** Why Release cannot be used on `lease`; null when it can. */
function releaseRefusal(lease: LeaseModel): string | null {
  if (lease.holderState === 'released') return 'This lease is already released';
  if (!lease.heldByThisApp)
    return `Only its holder can release it (${lease.holderState === 'alive' ? 'held by' : 'was held by'} ${
      lease.holder ? `pid ${lease.holder.pid}` : 'another process'
    }); kill its runs' trees instead`;
  return null;
}

/** Releasing ends every live run of the lease: with any, the user confirms a list of what ends. */
function askRelease(lease: LeaseModel, askConfirm: ReturnType<typeof useAppStore.getState>['askConfirm']): void {
  const live = lease.runs.filter((run) => run.phase !== 'ended');
  if (live.length === 0) {
    void requestReleaseLease(lease.id, lease.name);
    return;
  }
  const processes = live.reduce((sum, run) => sum + run.processes.length, 0);
  askConfirm({
    title: `Release lease ${lease.name} and end ${live.length} running run${live.length === 1 ? '' : 's'} (${processes} process${
      processes === 1 ? '' : 'es'
    })?`,
    lines: live.map(
      (run) =>
        `${run.id}: ${[run.command, ...run.args].join(' ')} — ${run.processes.length} process${
          run.processes.length === 1 ? '' : 'es'
        }`,
    ),
    confirmLabel: `Release and end ${live.length} run${live.length === 1 ? '' : 's'}`,
    onConfirm: () => void requestReleaseLease(lease.id, lease.name),
  });
}

export function LeaseView() {
  const lease = useAppStore((state) => selectLease(state, state.selectedLeaseId));
  const hasLeases = useAppStore((state) => (state.snapshot?.leases.length ?? 0) > 0);
  const releasing = useAppStore((state) => (lease ? `release:${lease.id}` in state.pending : false));
  const askConfirm = useAppStore((state) => state.askConfirm);
  if (!hasLeases) return <EmptyState />;
  if (!lease) return <div className="placeholder">Select a lease on the left.</div>;
  const runs = [...lease.runs].sort((a, b) => b.startedAtMs - a.startedAtMs);
  return (
    <div className="lease-view">
      <header className="lease-head">
        <div className="lease-title">
          <HolderDot state={lease.holderState} />
          <h2>{lease.name}</h2>
          <span className="muted" title={lease.holderCommand}>
            holder {lease.holderState}
            {lease.holder && !lease.holderCommand.startsWith(`pid ${lease.holder.pid} `)
              ? ` · pid ${lease.holder.pid}`
              : ''}{' '}
            · {shortenCommandLine(lease.holderCommand)} · since <ClockTime atMs={lease.createdAtMs} />
          </span>
        </div>
        <div className="lease-actions">
          <span className="muted">
            {lease.runs.length} run{lease.runs.length === 1 ? '' : 's'} · {lease.liveCount} live
          </span>
          {lease.guardianLost ? (
            <span className="badge badge-warn" title="The lease's guardian died; its holder supervises the runs itself">
              guardian lost
            </span>
          ) : null}
          {lease.leakedCount > 0 ? <span className="badge badge-bad">{lease.leakedCount} leaked</span> : null}
          <button
            type="button"
            className="btn btn-sm"
            disabled={releaseRefusal(lease) !== null || releasing}
            onClick={() => askRelease(lease, askConfirm)}
            title={releaseRefusal(lease) ?? 'Release the lease: its guardian ends every process the lease still owns'}
          >
            {releasing ? 'Releasing…' : 'Release lease'}
          </button>
        </div>
      </header>
      <div className="runs">
        {runs.length === 0 ? <div className="placeholder">This lease has no runs yet.</div> : null}
        {runs.map((run) => (
          <RunCard key={run.id} run={run} />
        ))}
      </div>
    </div>
  );
}
