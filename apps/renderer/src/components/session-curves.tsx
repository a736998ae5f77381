/**
 * An agent session's CPU and memory over time (the sum over its members, from the session's
 * totals ring): two sparklines for its row in the sidebar, a chart for the Sessions view. An
 * ended session with nothing alive shows the curve it had until then, labelled as such.
 */
import { useSamples } from '../hooks/use-samples';
import { sessionHistoryKey } from '../model/session-samples';
import { ResourceChart } from './resource-chart';
import { Sparkline } from './sparkline';

export function SessionSparklines({ sessionId, final }: { sessionId: string; final: boolean }) {
  const samples = useSamples('run', sessionHistoryKey(sessionId));
  if (samples.length < 2) return null;
  return (
    <div className="session-sparks" data-testid="session-sparks">
      <Sparkline samples={samples} kind="cpu" final={final} testId="session-spark-cpu" />
      <Sparkline samples={samples} kind="memory" final={final} testId="session-spark-memory" />
    </div>
  );
}

export function SessionChart({ sessionId, final }: { sessionId: string; final: boolean }) {
  const samples = useSamples('run', sessionHistoryKey(sessionId));
  return (
    <section className="session-chart" data-testid="session-chart">
      <h3 className="session-chart-title">Resources · whole session{final ? ' (until it ended)' : ''}</h3>
      <ResourceChart samples={samples} what={`session ${sessionId}`} final={final} />
    </section>
  );
}
