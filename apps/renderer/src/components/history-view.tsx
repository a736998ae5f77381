/** The ledger of past runs (getHistory), newest first; a row opens its run. */
import type { HistoryEntry, Snapshot } from '@treewarden/protocol';
import { useEffect, useState } from 'react';
import { loadHistory } from '../actions/actions';
import { formatDuration, shortenCommandLine } from '../model/format';
import { openRunStatus } from '../model/history-status';
import { useAppStore } from '../store/store';
import { ClassificationBadge } from './badges';
import { ClockTime } from './clock-time';
import { CopyButton } from './run-id';

/** Facts of a run that is no longer in the snapshot: what the ledger holds. */
function LedgerDetails({ entry }: { entry: HistoryEntry }) {
  return (
    <dl className="kv kv-inline history-facts" data-testid="history-details">
      <dt>Command</dt>
      <dd>
        <code className="wrap">{entry.command}</code>
      </dd>
      <dt>Working dir</dt>
      <dd>
        <code className="wrap">{entry.cwd ?? 'not recorded'}</code>
      </dd>
      <dt>Started</dt>
      <dd>
        <ClockTime atMs={entry.startedAtMs} withDay />
      </dd>
      <dt>Ended</dt>
      <dd>{entry.endedAtMs === null ? 'no end recorded' : <ClockTime atMs={entry.endedAtMs} withDay />}</dd>
      <dt>Lease</dt>
      <dd>{entry.leaseId ?? 'none recorded'}</dd>
      <dt>Survivors</dt>
      <dd>{entry.survivors}</dd>
    </dl>
  );
}

/** A run with no recorded end: running only while supervised; a leaked one says so in the danger colour. */
function OpenStatus({ entry, snapshot }: { entry: HistoryEntry; snapshot: Snapshot | null }) {
  const status = openRunStatus(entry, snapshot);
  return (
    <span className={status === 'leaked' ? 'hot' : 'muted'} data-testid="history-open-status">
      {status}
    </span>
  );
}

export function HistoryView() {
  const history = useAppStore((state) => state.history);
  const connected = useAppStore((state) => state.connection.status === 'open');
  const snapshot = useAppStore((state) => state.snapshot);
  const selectRun = useAppStore((state) => state.selectRun);
  const setView = useAppStore((state) => state.setView);
  const [expanded, setExpanded] = useState<string | null>(null);
  useEffect(() => {
    if (connected) void loadHistory();
  }, [connected]);
  if (!history) return <div className="placeholder">Loading history…</div>;
  if (history.length === 0) return <div className="placeholder">The ledger is empty: no run has ended yet.</div>;
  const entries = [...history].sort((a, b) => b.startedAtMs - a.startedAtMs);
  // A run still in the snapshot opens in Runs with its live tree; an older one unfolds its ledger facts.
  const open = (entry: HistoryEntry) => {
    const lease = snapshot?.leases.find((candidate) => candidate.runs.some((run) => run.id === entry.runId));
    if (lease) {
      selectRun(entry.runId, lease.id);
      setView('runs');
      return;
    }
    setExpanded((current) => (current === entry.runId ? null : entry.runId));
  };
  return (
    <div className="history">
      <table className="table">
        <thead>
          <tr>
            <th className="col-run">Run</th>
            <th>Command</th>
            <th>Started</th>
            <th className="num">Duration</th>
            <th>Outcome</th>
            <th className="num">Exit</th>
            <th className="num">Survivors</th>
          </tr>
        </thead>
        <tbody>
          {entries.flatMap((entry) => [
            <tr
              key={entry.runId}
              className={`history-row${expanded === entry.runId ? ' open' : ''}`}
              data-run-id={entry.runId}
              onClick={() => open(entry)}
            >
              <td className="col-run">
                <span className="run-id-cell">
                  <button
                    type="button"
                    className="run-id linklike"
                    title={`${entry.runId}: open`}
                    onClick={(event) => {
                      event.stopPropagation();
                      open(entry);
                    }}
                  >
                    {entry.runId}
                  </button>
                  <CopyButton text={entry.runId} what="run id" />
                </span>
              </td>
              <td className="ellipsis" title={entry.command}>
                {shortenCommandLine(entry.command)}
              </td>
              <td className="nowrap">
                <ClockTime atMs={entry.startedAtMs} />
              </td>
              <td className="num nowrap">
                {entry.endedAtMs === null ? '—' : formatDuration(entry.endedAtMs - entry.startedAtMs)}
              </td>
              <td className="nowrap" title={entry.endReason ?? undefined}>
                {entry.classification ? (
                  <ClassificationBadge classification={entry.classification} killedBy={entry.killedBy} />
                ) : (
                  <OpenStatus entry={entry} snapshot={snapshot} />
                )}
              </td>
              <td className="num">{entry.exitCode ?? '—'}</td>
              <td className={`num${entry.survivors > 0 ? ' hot' : ''}`}>{entry.survivors}</td>
            </tr>,
            expanded === entry.runId ? (
              <tr key={`${entry.runId}:details`} className="history-details-row">
                <td colSpan={7}>
                  <LedgerDetails entry={entry} />
                </td>
              </tr>
            ) : null,
          ])}
        </tbody>
      </table>
    </div>
  );
}
