/** Scenario launcher: each runaway-worker scenario with what goes wrong naively and how it is fixed. */
import { useEffect } from 'react';
import { loadScenarios, runScenario } from '../actions/actions';
import { useAppStore } from '../store/store';
import { ClassificationBadge } from './badges';

export function ScenariosView() {
  const scenarios = useAppStore((state) => state.scenarios);
  const pending = useAppStore((state) => state.pending);
  const connected = useAppStore((state) => state.connection.status === 'open');
  useEffect(() => {
    if (connected) void loadScenarios();
  }, [connected]);
  if (!scenarios) return <div className="placeholder">Loading scenarios…</div>;
  if (scenarios.length === 0) return <div className="placeholder">The host offers no scenarios.</div>;
  return (
    <div className="scenarios">
      <p className="view-intro">
        Each scenario starts a misbehaving worker under a lease. Watch its tree in <strong>Runs</strong> and how
        Treewarden ends it.
      </p>
      <div className="scenario-grid">
        {scenarios.map((scenario) => {
          const busy = `scenario:${scenario.name}` in pending;
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
              <footer>
                {scenario.available ? (
                  <button
                    type="button"
                    className="btn btn-primary btn-sm"
                    disabled={busy}
                    onClick={() => runScenario(scenario.name)}
                  >
                    {busy ? 'Starting…' : 'Run scenario'}
                  </button>
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
