/**
 * Scenario launcher: each runaway-worker scenario with what goes wrong naively and how it is fixed,
 * runnable both ways (like the CLI's `--naive`), at a normal or a slow demo pace, and after a run
 * whether the outcome matched "Expected".
 */
import { useEffect } from 'react';
import { loadScenarios, requestRunScenario } from '../actions/actions';
import { useAppStore } from '../store/store';
import { ClassificationBadge } from './badges';
import { ScenarioResults } from './scenario-result';

export function ScenariosView() {
  const scenarios = useAppStore((state) => state.scenarios);
  const pending = useAppStore((state) => state.pending);
  const launches = useAppStore((state) => state.scenarioLaunches);
  const connected = useAppStore((state) => state.connection.status === 'open');
  const pace = useAppStore((state) => state.scenarioPace);
  const setPace = useAppStore((state) => state.setScenarioPace);
  const slow = pace === 'slow';
  useEffect(() => {
    if (connected) void loadScenarios();
  }, [connected]);
  if (!scenarios) return <div className="placeholder">Loading scenarios…</div>;
  if (scenarios.length === 0) return <div className="placeholder">The host offers no scenarios.</div>;
  return (
    <div className="scenarios">
      <div className="view-intro scenarios-intro">
        <p>
          Each scenario starts a misbehaving worker under a lease. Watch its tree in <strong>Runs</strong> and how
          Treewarden ends it, or run it the naive way to see what a plain kill leaves behind.
        </p>
        <label className="pace" title="Scenarios that end by their timeout get a timeout five times longer">
          <input
            type="checkbox"
            checked={slow}
            onChange={(event) => setPace(event.target.checked ? 'slow' : 'normal')}
          />
          Slow demo pace
        </label>
      </div>
      <div className="scenario-grid">
        {scenarios.map((scenario) => {
          const busy = `scenario:${scenario.name}` in pending;
          const busyNaive = `scenario:${scenario.name}:naive` in pending;
          return (
            <article
              key={scenario.name}
              className={`scenario${scenario.available ? '' : ' unavailable'}`}
              aria-label={scenario.title}
            >
              <header>
                <h3>{scenario.title}</h3>
                <code className="muted">{scenario.name}</code>
              </header>
              <p>{scenario.explanation}</p>
              <dl className="scenario-facts">
                <dt>Naive tools</dt>
                <dd>{scenario.naiveFailure}</dd>
                <dt>Treewarden</dt>
                <dd>{scenario.treewardenFix}</dd>
                <dt>Expected</dt>
                <dd>
                  <ClassificationBadge classification={scenario.expected.classification} />{' '}
                  {scenario.expected.nothingSurvives ? 'nothing survives' : 'survivors reported'}
                </dd>
              </dl>
              <ScenarioResults scenario={scenario} launches={launches[scenario.name]} />
              <footer>
                {scenario.available ? (
                  <>
                    <button
                      type="button"
                      className="btn btn-primary btn-sm"
                      disabled={busy}
                      onClick={() => requestRunScenario(scenario.name, false, pace)}
                      title={
                        slow && !scenario.paceable
                          ? 'Runs at its own pace: this scenario races its timeout or is driven step by step'
                          : 'Run it under Treewarden'
                      }
                    >
                      {busy ? 'Starting…' : 'Run scenario'}
                    </button>
                    <button
                      type="button"
                      className="btn btn-sm"
                      disabled={busyNaive}
                      onClick={() => requestRunScenario(scenario.name, true, pace)}
                      title="Run it the naive way (the CLI's --naive): a plain kill, then the engine cleans up what it left"
                    >
                      {busyNaive ? 'Starting…' : 'Run naive'}
                    </button>
                    {slow && scenario.paceable ? <span className="muted">×5 timeout</span> : null}
                  </>
                ) : (
                  <span className="muted">Unavailable: {scenario.unavailableReason ?? 'not on this platform'}</span>
                )}
              </footer>
            </article>
          );
        })}
      </div>
    </div>
  );
}
