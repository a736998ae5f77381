/** One run in the lease view: header (state, countdown, actions) above its live process tree. */
import type { RunView } from '@treewarden/protocol';
import { memo } from 'react';
import { requestRetryRun } from '../actions/actions';
import { useSamples } from '../hooks/use-samples';
import { shortenCommandLine } from '../model/format';
import { formatSocket, shortSocket, socketsOf } from '../model/ports';
import { runHistoryKey } from '../store/history-slice';
import { useAppStore } from '../store/store';
import { RunStateBadge } from './badges';
import { Countdown } from './countdown';
import { ProcessTree } from './process-tree';
import { CopyButton, RunId } from './run-id';
import { Sparkline } from './sparkline';

/** Chips stop here; the rest is counted ("+3") and listed in its tooltip. */
const MAX_PORT_CHIPS = 4;

/** The ports the run's tree listens on, as small chips (`:3000`), full form in each tooltip. */
function PortChips({ run }: { run: RunView }) {
  const sockets = socketsOf(run.processes);
  if (sockets.length === 0) return null;
  const shown = sockets.slice(0, MAX_PORT_CHIPS);
  const rest = sockets.slice(MAX_PORT_CHIPS);
  return (
    <ul
      className="port-chips"
      aria-label={`Listening: ${sockets.map(formatSocket).join(', ')}`}
      data-testid="port-chips"
    >
      {shown.map((socket) => (
        <li key={formatSocket(socket)} className="port-chip" title={`Listening on ${formatSocket(socket)}`}>
          {shortSocket(socket)}
        </li>
      ))}
      {rest.length > 0 ? (
        <li className="port-chip port-chip-more" title={rest.map(formatSocket).join('\n')}>
          +{rest.length}
        </li>
      ) : null}
    </ul>
  );
}

/** The whole tree's CPU and memory, drawn from the run's totals ring. */
function RunSparklines({ runId }: { runId: string }) {
  const samples = useSamples('run', runHistoryKey(runId));
  if (samples.length < 2) return null;
  return (
    <span className="run-sparks">
      <Sparkline samples={samples} kind="cpu" testId="run-spark-cpu" />
      <Sparkline samples={samples} kind="memory" testId="run-spark-memory" />
    </span>
  );
}

/** The last kill of this run when it did not do what was asked: refused, or something survived. */
function killProblemOf(run: RunView): string | null {
  const kill = run.lastKill;
  if (kill === null) return null;
  if (kill.result === 'refused')
    return `Kill refused: ${(kill.error ?? 'the identity changed; nothing was signalled').replace(/^refused:\s*/, '')}`;
  if (kill.result === 'kill_failed')
    return `Kill failed: ${kill.error ?? `${kill.survivors.length} process(es) survived`}`;
  return null;
}

function RunCardView({ run }: { run: RunView }) {
  const selected = useAppStore((state) => state.selectedRunId === run.id);
  const selectRun = useAppStore((state) => state.selectRun);
  const askKill = useAppStore((state) => state.askKill);
  const askClean = useAppStore((state) => state.askClean);
  const retrying = useAppStore((state) => `retry:${run.id}` in state.pending);
  const rootNode = run.root ? run.processes.find((node) => node.pid === run.root?.pid) : undefined;
  const canKill = run.root !== null && run.phase !== 'ended';
  const killRefusal =
    run.root === null
      ? 'Its root process is not known yet'
      : run.phase === 'ended'
        ? 'The run has ended: nothing of its own to kill'
        : null;
  const commandLine = [run.command, ...run.args].join(' ');
  // A cancel is what someone asked for: said plainly, not as a failure.
  const failed = run.phase === 'ended' && run.classification !== 'ok' && run.classification !== 'cancelled';
  // What a failed run said last is usually why it failed: shown on the card, the rest in Details.
  const lastStderrLine = lastLine(run.stderrTail);
  const killProblem = killProblemOf(run);
  return (
    <section className={`run${selected ? ' selected' : ''}`} data-run-id={run.id} aria-label={`Run ${run.id}`}>
      <header className="run-head">
        <div className="run-title">
          <button
            type="button"
            className="run-select"
            onClick={() => selectRun(run.id)}
            title={`${run.id}: show details`}
          >
            <span className={`dot ${run.unsupervised ? 'dot-dead' : `dot-phase-${run.phase}`}`} />
            <RunId id={run.id} />
          </button>
          <CopyButton text={run.id} what="run id" />
          <button type="button" tabIndex={-1} className="run-cmd" onClick={() => selectRun(run.id)} title={commandLine}>
            {shortenCommandLine(commandLine)}
          </button>
        </div>
        <div className="run-meta">
          <RunStateBadge run={run} />
          {run.leakedCount > 0 ? (
            <button
              type="button"
              className="badge badge-bad badge-button"
              onClick={() => askClean({ runId: run.id })}
              title="Processes of this run still alive after it ended or lost its supervisors: click to end them (asks first)"
            >
              {run.leakedCount} leaked · clean
            </button>
          ) : null}
          {run.unsupervised ? null : <Countdown run={run} />}
          <PortChips run={run} />
          {run.processes.length > 0 ? <RunSparklines runId={run.id} /> : null}
          <span className="run-count">
            {run.processes.length} process{run.processes.length === 1 ? '' : 'es'}
          </span>
        </div>
        <div className="run-actions">
          {/* An ended run offers no Kill: a red button there reads as something still to end. */}
          {run.phase === 'ended' ? null : (
            <button
              type="button"
              className="btn btn-sm btn-danger"
              disabled={!canKill}
              title={killRefusal ?? 'End this run’s whole tree (asks first)'}
              onClick={() => {
                if (run.root)
                  askKill({
                    target: run.root,
                    command: rootNode?.commandLine ?? commandLine,
                    scope: 'tree',
                    runId: run.id,
                    ...(rootNode ? { startedAtMs: rootNode.startedAtMs } : {}),
                  });
              }}
            >
              Kill tree
            </button>
          )}
          <button
            type="button"
            className="btn btn-sm"
            disabled={!run.retry.available || retrying}
            title={run.retry.reason ?? 'Start the same command line again (same cwd, without its environment)'}
            onClick={() => requestRetryRun(run.id)}
          >
            {retrying ? 'Retrying…' : 'Retry'}
          </button>
        </div>
      </header>
      {killProblem ? (
        <div className="run-reason run-reason-bad" data-testid="run-kill-problem">
          {killProblem}
        </div>
      ) : null}
      {run.endReason ? (
        <div className={`run-reason${failed ? ' run-reason-bad' : ''}`} data-testid="run-end-reason">
          {run.endReason}
        </div>
      ) : null}
      {failed && lastStderrLine !== null ? (
        <div className="run-reason run-reason-bad" data-testid="run-stderr-line" title={run.stderrTail}>
          stderr: <code>{lastStderrLine}</code>
        </div>
      ) : null}
      {run.phase === 'ended' && run.processes.length === 0 ? (
        <div className="tree-empty">
          Ended{run.exitCode !== null ? ` with exit code ${run.exitCode}` : ''}
          {run.signal ? ` by ${run.signal}` : ''}; nothing of its tree is left.
        </div>
      ) : (
        <ProcessTree
          runId={run.id}
          processes={run.processes}
          rootPid={run.root?.pid ?? null}
          label={`Processes of run ${run.id}`}
        />
      )}
    </section>
  );
}

/** Longer last lines are cut on the card; the whole tail is in its title and in Details. */
const STDERR_LINE_CHARS = 200;

/** The last non-blank line of `text`, cut to STDERR_LINE_CHARS, or null. */
function lastLine(text: string): string | null {
  const line = text
    .split('\n')
    .filter((candidate) => candidate.trim() !== '')
    .at(-1)
    ?.trim();
  if (line === undefined) return null;
  return line.length > STDERR_LINE_CHARS ? `${line.slice(0, STDERR_LINE_CHARS - 1)}…` : line;
}

export const RunCard = memo(RunCardView);
