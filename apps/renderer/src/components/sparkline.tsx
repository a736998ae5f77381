/**
 * A small inline-SVG curve (no chart library): sized by CSS, stretched to its box, labelled for
 * screen readers with the latest value and the trend ("CPU 12.5 %, rising over the last 40s").
 */
import type { Sample } from '../model/history';
import { describeSeries, knownValues } from '../model/trend';

/** Drawing box of every curve; CSS decides the size on screen. */
export const SPARK_WIDTH = 100;
export const SPARK_HEIGHT = 24;
/** CPU curves never zoom in below this ceiling, so 0.3 % of noise does not look like a spike. */
export const CPU_SCALE_FLOOR_PERCENT = 10;

/** Memory curves span at least this share of their value (or MEMORY_FLAT_MIN_BYTES), centred. */
const MEMORY_FLAT_SHARE = 0.05;
const MEMORY_FLAT_MIN_BYTES = 1024 * 1024;

export type SeriesKind = 'cpu' | 'memory';

/** Per sample, oldest first; null where the value is unknown (a gap in the curve). */
export function valuesOf(samples: readonly Sample[], kind: SeriesKind): (number | null)[] {
  return samples.map((sample) => (kind === 'cpu' ? sample.cpuPercent : sample.memoryBytes));
}

/** Vertical range: CPU from 0 (with a floor on the ceiling); memory from its own low to its high. */
export function rangeOf(series: readonly (number | null)[], kind: SeriesKind): { low: number; high: number } {
  const values = knownValues(series);
  if (values.length === 0) return { low: 0, high: 1 };
  const high = Math.max(...values);
  if (kind === 'cpu') return { low: 0, high: Math.max(high, CPU_SCALE_FLOOR_PERCENT) };
  const low = Math.min(...values);
  // A flat or nearly flat memory curve is drawn mid-box on a scale a person can read (±5 %),
  // not zoomed into a few bytes of noise.
  const pad = Math.max(high * MEMORY_FLAT_SHARE, MEMORY_FLAT_MIN_BYTES) - (high - low) / 2;
  return pad > 0 ? { low: Math.max(0, low - pad), high: high + pad } : { low, high };
}

/**
 * The SVG path of the curve in a width × height box; empty with fewer than two samples. An
 * unknown value is a gap: no point is drawn there and no line leads to or from it (the next known
 * value starts a new stroke), so a curve never shows a 0 nobody measured.
 *
 * A point inside a level run (the same height as both its neighbours) is left out: it draws
 * nothing the line through it does not. So a level curve keeps one path while samples arrive and
 * the step between them shrinks, and the page has no path to set again (on the idle system view
 * the path changes fell from 6.9 to 2.4 a second; no CPU difference was measured: RESULTS.md).
 */
export function sparkPath(
  values: readonly (number | null)[],
  kind: SeriesKind,
  width = SPARK_WIDTH,
  height = SPARK_HEIGHT,
) {
  if (values.length < 2) return '';
  const { low, high } = rangeOf(values, kind);
  const step = width / (values.length - 1);
  // Each known value's height as the path writes it, once: a level run compares these strings.
  const levels = values.map((value) =>
    value === null ? null : (height - 1 - ((value - low) / (high - low)) * (height - 2)).toFixed(2),
  );
  const parts: string[] = [];
  levels.forEach((level, index) => {
    if (level === null) return;
    const before = levels[index - 1] ?? null;
    const after = levels[index + 1] ?? null;
    // Inside a level run: its neighbours on both sides are drawn, at the same height.
    if (before === level && after === level) return;
    parts.push(`${before !== null ? 'L' : 'M'}${(index * step).toFixed(2)},${level}`);
  });
  return parts.join(' ');
}

export function spanOf(samples: readonly Sample[]): number {
  const first = samples[0];
  const last = samples.at(-1);
  return first && last ? last.atMs - first.atMs : 0;
}

export function Sparkline({
  samples,
  kind,
  className,
  testId,
  final = false,
}: {
  samples: readonly Sample[];
  kind: SeriesKind;
  className?: string;
  testId?: string;
  /** The curve ended with what it describes (an ended session): its label says "at its end", not now. */
  final?: boolean;
}) {
  const values = valuesOf(samples, kind);
  const label = describeSeries(kind === 'cpu' ? 'CPU' : 'Memory', values, spanOf(samples), final);
  return (
    <svg
      className={`spark spark-${kind}${className ? ` ${className}` : ''}`}
      viewBox={`0 0 ${SPARK_WIDTH} ${SPARK_HEIGHT}`}
      preserveAspectRatio="none"
      role="img"
      aria-label={label}
      data-testid={testId}
    >
      <title>{label}</title>
      <path d={sparkPath(values, kind)} vectorEffect="non-scaling-stroke" />
    </svg>
  );
}
