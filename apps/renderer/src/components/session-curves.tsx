/**
 * An agent session's CPU and memory over time (the sum over its members, from the session's
 * totals ring): two sparklines for its row in the sidebar, a chart for the Sessions view. An
 * ended session with nothing alive shows the curve it had until then, labelled as such.
 */
import { useSamples } from '../hooks/use-samples';
import { chartCoversSession, sessionHistoryKey } from '../model/session-samples';
import { ClockTime } from './clock-time';
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

export function SessionChart({
  sessionId,
  startedAtMs,
  final,
}: {
  sessionId: string;
  startedAtMs: number;
  final: boolean;
}) {
  const samples = useSamples('run', sessionHistoryKey(sessionId));
  const first = samples[0]?.atMs;
  // The curve holds what this page saw: "whole session" only when it saw the session start.
  const whole = first === undefined || chartCoversSession(first, startedAtMs);
  return (
    <section className="session-chart" data-testid="session-chart">
      <h3 className="session-chart-title" data-testid="session-chart-title">
        Resources ·{' '}
        {whole ? (
          'whole session'
        ) : (
          <span title="The curve starts when this page began watching; the session started earlier">
            since <ClockTime atMs={first} /> (when this page began watching)
          </span>
        )}
        {final ? ' (until it ended)' : ''}
      </h3>
      <ResourceChart samples={samples} what={`session ${sessionId}`} final={final} />
    </section>
  );
}
