/**
 * What a scenario card says after a launch, side by side: the naive way (what it left alive) and
 * under Treewarden (the outcome against "Expected"). Read from the live snapshot, never guessed.
 */
import type { ScenarioInfo, Snapshot } from '@treewarden/protocol';
import { useAppStore } from '../store/store';
import type { ScenarioLaunches } from '../store/types';
import { ClassificationBadge } from './badges';

function runOf(snapshot: Snapshot | null, runId: string) {
  for (const lease of snapshot?.leases ?? []) for (const run of lease.runs) if (run.id === runId) return run;
  return null;
}

function TreewardenResult({ scenario, runId }: { scenario: ScenarioInfo; runId: string }) {
  const run = useAppStore((state) => runOf(state.snapshot, runId));
  if (!run) return <div className="scenario-result pending">Started as {runId}; waiting for its run…</div>;
  if (run.phase !== 'ended' || !run.classification)
    return <div className="scenario-result pending">Running: watch its tree in Runs.</div>;
  const { expected } = scenario;
  const classified = run.classification === expected.classification;
  const survivorsOk = !expected.nothingSurvives || run.leakedCount === 0;
  const matched = classified && survivorsOk;
  return (
    <div className={`scenario-result ${matched ? 'matched' : 'differs'}`} data-testid="scenario-result">
      <ClassificationBadge classification={run.classification} />{' '}
      {matched
        ? '✓ matches Expected'
        : `✕ differs from Expected (${expected.classification}${expected.nothingSurvives ? ', nothing survives' : ''})`}
      {run.leakedCount > 0 ? ` · ${run.leakedCount} still alive` : ''}
    </div>
  );
}

function NaiveResult({ runId }: { runId: string }) {
  const alive = useAppStore(
    (state) => (state.snapshot?.orphans ?? []).filter((orphan) => orphan.runId === runId).length,
  );
  return (
    <div className={`scenario-result ${alive > 0 ? 'differs' : 'pending'}`} data-testid="scenario-naive-result">
      {alive > 0
        ? `${alive} process${alive === 1 ? '' : 'es'} the naive kill left alive (shown as leaked)`
        : 'Nothing of it alive now: the naive kill ran, then the engine cleaned up what it left (see Activity and the leak banner while it lasts)'}
    </div>
  );
}

export function ScenarioResults({
  scenario,
  launches,
}: {
  scenario: ScenarioInfo;
  launches: ScenarioLaunches | undefined;
}) {
  if (!launches) return null;
  return (
    <div className="scenario-compare">
      <div>
        <h4>Naive</h4>
        {launches.naive ? <NaiveResult runId={launches.naive.runId} /> : <div className="muted">Not run yet.</div>}
      </div>
      <div>
        <h4>Treewarden</h4>
        {launches.treewarden ? (
          <TreewardenResult scenario={scenario} runId={launches.treewarden.runId} />
        ) : (
          <div className="muted">Not run yet.</div>
        )}
      </div>
    </div>
  );
}
