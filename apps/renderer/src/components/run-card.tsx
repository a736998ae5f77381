/** One run in the lease view: header (state, countdown, actions) above its live process tree. */
import type { RunView } from '@treewarden/protocol';
import { memo } from 'react';
import { retryRun } from '../actions/actions';
import { shortenCommandLine } from '../model/format';
import { useAppStore } from '../store/store';
import { ClassificationBadge, PhaseBadge } from './badges';
import { Countdown } from './countdown';
import { ProcessTree } from './process-tree';
import { CopyButton, RunId } from './run-id';

function RunCardView({ run }: { run: RunView }) {
  const selected = useAppStore((state) => state.selectedRunId === run.id);
  const selectRun = useAppStore((state) => state.selectRun);
  const askKill = useAppStore((state) => state.askKill);
  const askClean = useAppStore((state) => state.askClean);
  const retrying = useAppStore((state) => `retry:${run.id}` in state.pending);
  const rootNode = run.root ? run.processes.find((node) => node.pid === run.root?.pid) : undefined;
  const canKill = run.root !== null && run.phase !== 'ended';
  const commandLine = [run.command, ...run.args].join(' ');
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
            <span className={`dot dot-phase-${run.phase}`} />
            <RunId id={run.id} />
          </button>
          <CopyButton text={run.id} what="run id" />
          <button type="button" tabIndex={-1} className="run-cmd" onClick={() => selectRun(run.id)} title={commandLine}>
            {shortenCommandLine(commandLine)}
          </button>
        </div>
        <div className="run-meta">
          {run.phase === 'ended' && run.classification ? (
            <ClassificationBadge classification={run.classification} />
          ) : (
            <PhaseBadge phase={run.phase} />
          )}
          {run.leakedCount > 0 ? (
            <button
              type="button"
              className="badge badge-bad badge-button"
              onClick={() => askClean({ runId: run.id })}
              title="Processes of this run still alive after it ended: click to end them"
            >
              {run.leakedCount} leaked · clean
            </button>
          ) : null}
          <Countdown run={run} />
          <span className="run-count">
            {run.processes.length} process{run.processes.length === 1 ? '' : 'es'}
          </span>
        </div>
        <div className="run-actions">
          <button
            type="button"
            className="btn btn-sm btn-danger"
            disabled={!canKill}
            title={
              canKill
                ? "End this run's whole tree (asks first)"
                : run.phase === 'ended'
                  ? 'The run has ended: nothing of its own to kill'
                  : 'Its root process is not known yet'
            }
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
          <button
            type="button"
            className="btn btn-sm"
            disabled={run.phase !== 'ended' || retrying}
            title={run.phase === 'ended' ? 'Start the same command again' : 'Retry is offered once the run has ended'}
            onClick={() => retryRun(run.id)}
          >
            {retrying ? 'Retrying…' : 'Retry'}
          </button>
        </div>
      </header>
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

export const RunCard = memo(RunCardView);
