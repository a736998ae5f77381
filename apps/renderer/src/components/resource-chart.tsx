/**
 * The details panel's chart: CPU % and memory over the kept window, each with its scale on the
 * left (top and bottom values) and the time axis below ("2 min 10 s ago" … "now"). Inline SVG.
 */
import { formatBytes, formatDuration, formatPercent } from '../model/format';
import type { Sample } from '../model/history';
import { describeSeries } from '../model/trend';
import { rangeOf, type SeriesKind, spanOf, sparkPath, valuesOf } from './sparkline';

const CHART_WIDTH = 300;
const CHART_HEIGHT = 64;
const MS_PER_SECOND = 1000;

function formatValue(kind: SeriesKind, value: number): string {
  return kind === 'cpu' ? `${formatPercent(value)} %` : formatBytes(value);
}

function ChartRow({ samples, kind, final }: { samples: readonly Sample[]; kind: SeriesKind; final: boolean }) {
  const values = valuesOf(samples, kind);
  const { low, high } = rangeOf(values, kind);
  const span = spanOf(samples);
  const title = kind === 'cpu' ? 'CPU %' : 'Memory';
  const label = describeSeries(kind === 'cpu' ? 'CPU' : 'Memory', values, span, final);
  const newest = values.at(-1);
  // No known value yet: no scale either (a "1 B … 0 B" axis would describe nothing measured).
  const measured = values.some((value) => value !== null);
  // "—" while the newest value is unknown (just seen): never a 0 nobody measured.
  const latest =
    newest === undefined ? null : `${newest === null ? '—' : formatValue(kind, newest)}${final ? ' at its end' : ''}`;
  return (
    <figure className={`chart chart-${kind}`}>
      <figcaption>
        {title} <span className="muted">· {latest ?? (final ? 'no samples before it ended' : 'no samples yet')}</span>
      </figcaption>
      <div className="chart-body">
        <div className="chart-y" aria-hidden="true">
          <span>{measured ? formatValue(kind, high) : ''}</span>
          <span>{measured ? formatValue(kind, Math.max(0, low)) : ''}</span>
        </div>
        <svg
          className={`chart-plot spark-${kind}`}
          viewBox={`0 0 ${CHART_WIDTH} ${CHART_HEIGHT}`}
          preserveAspectRatio="none"
          role="img"
          aria-label={label}
          data-testid={`chart-${kind}`}
        >
          <title>{label}</title>
          <line className="chart-grid" x1="0" x2={CHART_WIDTH} y1={CHART_HEIGHT / 2} y2={CHART_HEIGHT / 2} />
          <path d={sparkPath(values, kind, CHART_WIDTH, CHART_HEIGHT)} vectorEffect="non-scaling-stroke" />
        </svg>
      </div>
    </figure>
  );
}

/** The time axis's ends: "2 min 10 s ago … now", or for a final curve "2 min 10 s before … its end". */
function axisLabels(samples: readonly Sample[], final: boolean): [string, string] {
  const span = spanOf(samples);
  const length = span < MS_PER_SECOND ? 'under 1 s' : formatDuration(span);
  const start = samples.length < 2 ? '—' : `${length} ${final ? 'before' : 'ago'}`;
  return [start, final ? 'its end' : 'now'];
}

/** `final`: the curve stopped when what it shows ended (an ended session), so its right end is not "now". */
export function ResourceChart({
  samples,
  what,
  final = false,
}: {
  samples: readonly Sample[];
  what: string;
  final?: boolean;
}) {
  const span = spanOf(samples);
  const window = `${final ? 'its' : 'the'} last ${formatDuration(span)}`;
  const [start, end] = axisLabels(samples, final);
  return (
    <section
      className="resource-chart"
      aria-label={`Resource history of ${what}, ${window}`}
      data-testid="resource-chart"
    >
      <ChartRow samples={samples} kind="cpu" final={final} />
      <ChartRow samples={samples} kind="memory" final={final} />
      <div className="chart-x" title={`Time window: ${window}`}>
        <span>{start}</span>
        <span>{end}</span>
      </div>
    </section>
  );
}
