/** The ledger of past runs (getHistory), newest first. */
import { useEffect } from 'react';
import { loadHistory } from '../actions/actions';
import { formatClock, formatDuration, shortenCommandLine } from '../model/format';
import { useAppStore } from '../store/store';
import { ClassificationBadge } from './badges';

export function HistoryView() {
  const history = useAppStore((state) => state.history);
  const connected = useAppStore((state) => state.connection.status === 'open');
  useEffect(() => {
    if (connected) void loadHistory();
  }, [connected]);
  if (!history) return <div className="placeholder">Loading history…</div>;
  if (history.length === 0) return <div className="placeholder">The ledger is empty: no run has ended yet.</div>;
  const entries = [...history].sort((a, b) => b.startedAtMs - a.startedAtMs);
  return (
    <div className="history">
      <table className="table">
        <thead>
          <tr>
            <th>Run</th>
            <th>Command</th>
            <th>Started</th>
            <th className="num">Duration</th>
            <th>Outcome</th>
            <th className="num">Exit</th>
            <th className="num">Survivors</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.runId}>
              <td>
                <code>{entry.runId}</code>
              </td>
              <td className="ellipsis" title={entry.command}>
                {shortenCommandLine(entry.command)}
              </td>
              <td>{formatClock(entry.startedAtMs)}</td>
              <td className="num">
                {entry.endedAtMs === null ? '—' : formatDuration(entry.endedAtMs - entry.startedAtMs)}
              </td>
              <td title={entry.endReason ?? undefined}>
                {entry.classification ? (
                  <ClassificationBadge classification={entry.classification} />
                ) : (
                  <span className="muted">running</span>
                )}
              </td>
              <td className="num">{entry.exitCode ?? '—'}</td>
              <td className={`num${entry.survivors > 0 ? ' hot' : ''}`}>{entry.survivors}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
