/**
 * The exporter on a host's events: its snapshots turned into series for GET /metrics and, with an
 * OTLP URL, pushed through the OpenTelemetry SDK. `treewarden export` runs it on a host of its own
 * (export-main.ts); the app and `serve` on theirs, from their settings (export-control.ts).
 */
import { performance } from 'node:perf_hooks';
import type { HostEvent, Snapshot } from '@treewarden/protocol';
import { createEventDiffer, type ExportEvent, killEvent } from './events.js';
import type { ListenAddress } from './listen.js';
import { type MetricsServer, startMetricsServer } from './metrics-server.js';
import { type OtlpSide, startOtlp } from './otlp.js';
import { prometheusText } from './prom-text.js';
import { createCounters, integrateCpu, seriesOf } from './series.js';

/** What the exporter needs of a host: its events. */
export interface EventSource {
  onEvent(listener: (event: HostEvent) => void): () => void;
}

export interface ExporterOptions {
  readonly listen: ListenAddress;
  /** Bearer token every request must carry; null: none (loopback only). */
  readonly token: string | null;
  readonly otlp: URL | null;
  readonly intervalSeconds: number;
  readonly sessionLabels: boolean;
}

export interface Exporter {
  readonly server: MetricsServer;
  close(): Promise<void>;
}

/** Runs on `host`'s events (the host's own poller and observer); never closes the host. */
export async function startExporterOn(host: EventSource, options: ExporterOptions): Promise<Exporter> {
  const counters = createCounters();
  const differ = createEventDiffer(counters);
  let latest: Snapshot | null = null;
  let scrapeSeconds = 0;
  let otlp: OtlpSide | null = null;
  const series = () => seriesOf(latest, counters, { sessionLabels: options.sessionLabels, scrapeSeconds });
  const send = (events: readonly ExportEvent[]) => {
    for (const event of events) otlp?.emit(event);
  };
  const unsubscribe = host.onEvent((event) => {
    if (event.type === 'snapshot') {
      // The first snapshot is the baseline: what was already there is found, not "new since".
      const events = differ.next(event.snapshot);
      integrateCpu(event.snapshot, counters, options.sessionLabels);
      latest = event.snapshot;
      send(events);
    } else if (event.type === 'killOutcome') send([killEvent(event.report, counters)]);
  });
  let server: MetricsServer;
  try {
    server = await startMetricsServer(options.listen, options.token, () => {
      const started = performance.now();
      const text = prometheusText(series());
      scrapeSeconds = (performance.now() - started) / 1000;
      return text;
    });
  } catch (error) {
    unsubscribe();
    throw error;
  }
  if (options.otlp !== null)
    otlp = startOtlp({
      url: options.otlp,
      intervalMs: options.intervalSeconds * 1000,
      sessionLabels: options.sessionLabels,
      series,
      counters,
    });
  return {
    server,
    async close() {
      unsubscribe();
      await server.close();
      await otlp?.shutdown();
    },
  };
}
