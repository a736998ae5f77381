/**
 * The Prometheus text exposition format (0.0.4), written by hand: a dozen series with fixed names
 * do not need prom-client's registry, and owning the writer keeps one source (the snapshot) for
 * both /metrics and OTLP.
 */
import type { Labels, Series } from './series.js';

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function labelText(labels: Labels): string {
  const pairs = Object.entries(labels).map(([key, value]) => `${key}="${escapeLabel(value)}"`);
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
}

function valueText(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  return String(value);
}

export function prometheusText(series: readonly Series[]): string {
  const lines: string[] = [];
  for (const one of series) {
    lines.push(`# HELP ${one.name} ${one.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`);
    lines.push(`# TYPE ${one.name} ${one.type}`);
    for (const sample of one.samples) lines.push(`${one.name}${labelText(sample.labels)} ${valueText(sample.value)}`);
  }
  return `${lines.join('\n')}\n`;
}
