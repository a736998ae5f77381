/**
 * The details panel's chart: CPU % and memory over the kept window, each with its scale on the
 * left (top and bottom values) and the time axis below ("2m 10s ago" … "now"). Inline SVG.
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

function ChartRow({ samples, kind }: { samples: readonly Sample[]; kind: SeriesKind }) {
  const values = valuesOf(samples, kind);
  const { low, high } = rangeOf(values, kind);
  const span = spanOf(samples);
  const title = kind === 'cpu' ? 'CPU %' : 'Memory';
  const label = describeSeries(kind === 'cpu' ? 'CPU' : 'Memory', values, span);
  return (
    <figure className={`chart chart-${kind}`}>
      <figcaption>
        {title}{' '}
        <span className="muted">· {values.length > 0 ? formatValue(kind, values.at(-1) ?? 0) : 'no samples yet'}</span>
      </figcaption>
      <div className="chart-body">
        <div className="chart-y" aria-hidden="true">
          <span>{formatValue(kind, high)}</span>
          <span>{formatValue(kind, Math.max(0, low))}</span>
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

export function ResourceChart({ samples, what }: { samples: readonly Sample[]; what: string }) {
  const span = spanOf(samples);
  return (
    <section
      className="resource-chart"
      aria-label={`Resource history of ${what}, the last ${formatDuration(span)}`}
      data-testid="resource-chart"
    >
      <ChartRow samples={samples} kind="cpu" />
      <ChartRow samples={samples} kind="memory" />
      <div className="chart-x" title={`Time window: the last ${formatDuration(span)}`}>
        <span>{samples.length < 2 ? '—' : span < MS_PER_SECOND ? 'under 1s ago' : `${formatDuration(span)} ago`}</span>
        <span>now</span>
      </div>
    </section>
  );
}
