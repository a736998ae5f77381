/** Details of the selected run: command, cwd, env cookie, timeout, outcome, output tails, history. */
import type { Identity, RunView } from '@treewarden/protocol';
import { type ReactNode, useEffect, useMemo } from 'react';
import { loadHistory } from '../actions/actions';
import { useSamples } from '../hooks/use-samples';
import { formatDuration, shortenCommandLine } from '../model/format';
import { identityKey } from '../model/identity';
import { formatEnforcement, formatLimits, formatTrip } from '../model/limits';
import { describeStart } from '../model/process-start';
import { runHistoryKey } from '../store/history-slice';
import { selectRun } from '../store/selectors';
import { useAppStore } from '../store/store';
import { ClassificationBadge, KILLED_BY_TEXT, RunStateBadge } from './badges';
import { ClockTime } from './clock-time';
import { KillTimeline } from './kill-timeline';
import { ProcessDetails } from './process-details';
import { ResourceChart } from './resource-chart';
import { CopyButton } from './run-id';

/** The run's totals (every live member) over the kept window. */
function RunChart({ runId }: { runId: string }) {
  const samples = useSamples('run', runHistoryKey(runId));
  return (
    <section className="details-section">
      <h4>Resources · whole tree</h4>
      <ResourceChart samples={samples} what={`run ${runId}`} />
    </section>
  );
}

/** The run's root by wall-clock start while its node is live, by its identity once it is gone. */
function RootField({ run, root }: { run: RunView; root: Identity }) {
  const node = run.processes.find((candidate) => identityKey(candidate) === identityKey(root));
  return (
    <Field label="Root">
      pid {root.pid} · <span data-testid="run-root-start">{describeStart(root, node?.startedAtMs ?? null)}</span>
      {node ? (
        <span className="muted" title="Start time as the kernel counts it: the second half of the identity">
          {' '}
          ({root.startTime})
        </span>
      ) : null}
    </Field>
  );
}

/** Earlier runs of the same command listed in the details. */
const HISTORY_ROWS = 6;

/**
 * A ledger entry's command line against a run's: exact when the run's arguments are known; runs
 * watched from another holder's lease only know their program, so match on it then.
 */
function sameCommand(entryLine: string, runLine: string, argsKnown: boolean): boolean {
  if (argsKnown) return entryLine === runLine;
  return entryLine === runLine || entryLine.startsWith(`${runLine} `);
}

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
  const processKey = useAppStore((state) => state.selectedProcessKey);
  const folded = useAppStore((state) => state.detailsFolded);
  const setFolded = useAppStore((state) => state.setDetailsFolded);
  const runId = run?.id ?? null;
  const phase = run?.phase;
  // biome-ignore lint/correctness/useExhaustiveDependencies: reload the ledger when the run ends (phase changes)
  useEffect(() => {
    if (runId) void loadHistory();
  }, [runId, phase]);
  const commandLine = run ? [run.command, ...run.args].join(' ') : null;
  const argsKnown = (run?.args.length ?? 0) > 0;
  // Snapshots re-render the details every poll; the ledger only changes when it is reloaded.
  const earlier = useMemo(
    () =>
      (history ?? [])
        .filter((entry) => entry.runId !== runId && sameCommand(entry.command, commandLine ?? '', argsKnown))
        .slice(0, HISTORY_ROWS),
    [history, commandLine, argsKnown, runId],
  );
  // The ledger's run_start names the cwd the run asked for; the snapshot may only know its private dir.
  const recordedCwd = useMemo(() => history?.find((entry) => entry.runId === runId)?.cwd ?? null, [history, runId]);
  if (!run) return null;
  if (folded)
    return (
      <aside className="details details-folded" aria-label={`Details of run ${run.id}`}>
        <button
          type="button"
          className="details-rail"
          onClick={() => setFolded(false)}
          title={`Show the details of ${run.id}`}
        >
          ◂ Details
        </button>
      </aside>
    );
  const selectedNode = processKey
    ? run.processes.find((node) => `${node.pid}:${node.startTime}` === processKey)
    : undefined;
  const cwd = recordedCwd ?? run.cwd;
  return (
    <aside className="details" aria-label={`Details of run ${run.id}`}>
      <header className="details-head">
        <h3 title={run.id}>{run.id}</h3>
        <CopyButton text={run.id} what="run id" />
        <RunStateBadge run={run} />
        <button
          type="button"
          className="btn btn-xs btn-ghost"
          aria-label="Fold details"
          title="Fold the details to a rail"
          onClick={() => setFolded(true)}
        >
          ▸
        </button>
        <button type="button" className="btn btn-xs btn-ghost" aria-label="Close details" onClick={() => close(null)}>
          ✕
        </button>
      </header>
      {selectedNode ? <ProcessDetails node={selectedNode} rootPid={run.root?.pid ?? null} /> : null}
      <dl className="kv">
        <Field label="Command">
          <code className="wrap">{[run.command, ...run.args].join(' ')}</code>
        </Field>
        <Field label="Working dir">
          <code className="wrap" data-testid="run-cwd">
            {cwd}
          </code>
        </Field>
        {cwd !== run.cwd ? (
          <Field label="Run dir">
            <code className="wrap muted">{run.cwd}</code>
          </Field>
        ) : null}
        <Field label="Env cookie">
          <code className="wrap">{run.cookie}</code>
        </Field>
        <Field label="Timeout">{run.timeoutSeconds === null ? 'unknown' : `${run.timeoutSeconds} s`}</Field>
        {run.limits ? <Field label="Limits">{formatLimits(run.limits)}</Field> : null}
        {formatEnforcement(run) === null ? null : (
          <Field label="Enforced">
            <span className="wrap-words" data-testid="limit-enforcement">
              {run.limits || run.cgroup === undefined
                ? `limits enforced ${formatEnforcement(run)}`
                : `no limits; in its own cgroup ${run.cgroup}`}
            </span>
          </Field>
        )}
        <Field label="Started">
          <ClockTime atMs={run.startedAtMs} />
        </Field>
        <Field label="Deadline">{run.deadlineAtMs === null ? 'unknown' : <ClockTime atMs={run.deadlineAtMs} />}</Field>
        {run.endedAtMs !== null ? (
          <Field label="Ended">
            <ClockTime atMs={run.endedAtMs} /> after {formatDuration(run.endedAtMs - run.startedAtMs)}
          </Field>
        ) : null}
        {run.root ? <RootField run={run} root={run.root} /> : null}
        {run.phase === 'ended' ? (
          <Field label="Outcome">
            {run.classification ?? 'unknown'}
            {run.killedBy != null && KILLED_BY_TEXT[run.killedBy] !== null ? ` · ${KILLED_BY_TEXT[run.killedBy]}` : ''}
            {run.exitCode !== null ? ` · exit ${run.exitCode}` : ''}
            {run.signal ? ` · ${run.signal}` : ''}
            {run.leakedCount > 0 ? ` · ${run.leakedCount} leaked` : ''}
            {run.limitTrip ? ` · ${formatTrip(run.limitTrip)}` : ''}
          </Field>
        ) : null}
        {run.unsupervised ? (
          <Field label="Supervision">
            <span className="hot">lost: its lease holder and guardian are both dead</span>
          </Field>
        ) : null}
        {run.endReason ? (
          <Field label="Why">
            <span className="end-reason" data-testid="details-end-reason">
              {run.endReason}
            </span>
          </Field>
        ) : null}
      </dl>
      <RunChart runId={run.id} />
      {run.lastKill ? (
        <section className="details-section">
          <h4>Last kill</h4>
          <KillTimeline report={run.lastKill} />
        </section>
      ) : null}
      {run.outputCaptured === false ? (
        <section className="details-section">
          <h4>Output</h4>
          <p className="muted" data-testid="details-output-elsewhere">
            Not captured here: this run was started by its lease's holder, and its stdout and stderr went where that
            holder sent them (for <code>treewarden run</code>, the terminal it was typed in).
          </p>
        </section>
      ) : (
        <>
          <section className="details-section">
            <h4>stdout</h4>
            <pre className="tail">{run.stdoutTail || '(empty)'}</pre>
          </section>
          <section className="details-section">
            <h4>stderr</h4>
            <pre className="tail tail-err">{run.stderrTail || '(empty)'}</pre>
          </section>
        </>
      )}
      <section className="details-section">
        <h4 title={commandLine ?? run.command}>Earlier runs of {shortenCommandLine(commandLine ?? run.command)}</h4>
        {earlier.length === 0 ? (
          <div className="muted">None in the ledger.</div>
        ) : (
          <ul className="mini-history">
            {earlier.map((entry) => (
              <li key={entry.runId}>
                <span className="muted">
                  <ClockTime atMs={entry.startedAtMs} />
                </span>{' '}
                <span className="run-id" title={entry.runId}>
                  {entry.runId}
                </span>{' '}
                {entry.classification ? <ClassificationBadge classification={entry.classification} /> : null}
              </li>
            ))}
          </ul>
        )}
      </section>
    </aside>
  );
}
