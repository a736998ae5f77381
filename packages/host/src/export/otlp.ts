/**
 * The OTLP/HTTP (protobuf) side, through the official OpenTelemetry JS SDK: metrics as observable
 * instruments read by a PeriodicExportingMetricReader, events as log records through a
 * BatchLogRecordProcessor. A collector that is down or failing never reaches /metrics: the SDK's
 * exporters retry with backoff, the log queue is bounded (MAX_LOG_QUEUE: the oldest are dropped,
 * never buffered without end), and every batch that fails for good is counted as dropped.
 */
import { hostname } from 'node:os';
import type { Attributes } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider, type LogRecordExporter } from '@opentelemetry/sdk-logs';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { ExportEvent } from './events.js';
import type { ExportCounters, Series } from './series.js';

/** Log records held while the collector is down; past it new records are dropped (memory stays flat). */
export const MAX_LOG_QUEUE = 2048;
const MAX_LOG_BATCH = 512;
/** One export attempt (the SDK's retries with backoff included) gives up after this long at most. */
export const OTLP_EXPORT_TIMEOUT_MS = 10_000;
/**
 * The exporter's own timeout is this share of the reader's, so it answers (and a failure is
 * counted as a dropped batch) before the reader abandons the attempt without a result.
 */
const EXPORTER_TIMEOUT_SHARE = 0.8;
/** The result code the SDK's ExportResultCode.SUCCESS has (0), without importing core for one enum. */
const EXPORT_SUCCESS = 0;

export interface OtlpOptions {
  /** Base URL (`http://collector:4318`); `/v1/metrics` and `/v1/logs` are added. */
  readonly url: URL;
  readonly intervalMs: number;
  readonly sessionLabels: boolean;
  readonly series: () => readonly Series[];
  readonly counters: ExportCounters;
}

export interface OtlpSide {
  emit(event: ExportEvent): void;
  shutdown(): Promise<void>;
}

function endpoint(base: URL, path: string): string {
  return new URL(path, base.href.endsWith('/') ? base.href : `${base.href}/`).href;
}

/** Counts batches whose export failed for good (after the SDK's own retries). */
function counting<T>(
  exporter: { export(items: T, done: (result: ExportResult) => void): void },
  counters: ExportCounters,
): (items: T, done: (result: ExportResult) => void) => void {
  return (items, done) =>
    exporter.export(items, (result) => {
      if (result.code !== EXPORT_SUCCESS) counters.droppedBatches += 1;
      done(result);
    });
}

function metricExporter(url: URL, timeoutMs: number, counters: ExportCounters): PushMetricExporter {
  const inner = new OTLPMetricExporter({ url: endpoint(url, 'v1/metrics'), timeoutMillis: timeoutMs });
  return {
    export: counting(inner, counters),
    forceFlush: () => inner.forceFlush(),
    shutdown: () => inner.shutdown(),
    selectAggregationTemporality: (kind) => inner.selectAggregationTemporality(kind),
  };
}

function logExporter(url: URL, timeoutMs: number, counters: ExportCounters): LogRecordExporter {
  const inner = new OTLPLogExporter({ url: endpoint(url, 'v1/logs'), timeoutMillis: timeoutMs });
  return { export: counting(inner, counters), forceFlush: () => inner.forceFlush(), shutdown: () => inner.shutdown() };
}

/** Attributes a label set becomes; `session_id` is `session.id` in OTel's words. */
function attributesOf(labels: Readonly<Record<string, string>>): Attributes {
  const attributes: Attributes = {};
  for (const [key, value] of Object.entries(labels)) attributes[key === 'session_id' ? 'session.id' : key] = value;
  return attributes;
}

export function startOtlp(options: OtlpOptions): OtlpSide {
  const readerTimeoutMs = Math.min(options.intervalMs, OTLP_EXPORT_TIMEOUT_MS);
  const exporterTimeoutMs = Math.round(readerTimeoutMs * EXPORTER_TIMEOUT_SHARE);
  const resource = resourceFromAttributes({ 'service.name': 'treewarden', 'host.name': hostname() });
  const reader = new PeriodicExportingMetricReader({
    exporter: metricExporter(options.url, exporterTimeoutMs, options.counters),
    exportIntervalMillis: options.intervalMs,
    exportTimeoutMillis: readerTimeoutMs,
  });
  const meters = new MeterProvider({ resource, readers: [reader] });
  const meter = meters.getMeter('treewarden');
  // One observable instrument per series, all read from the same snapshot-built series per collection.
  for (const one of options.series()) {
    const instrument =
      one.type === 'counter'
        ? meter.createObservableCounter(one.name, { description: one.help })
        : meter.createObservableGauge(one.name, { description: one.help });
    instrument.addCallback((result) => {
      const current = options.series().find((candidate) => candidate.name === one.name);
      for (const sample of current?.samples ?? []) result.observe(sample.value, attributesOf(sample.labels));
    });
  }
  const logs = new LoggerProvider({
    resource,
    processors: [
      new BatchLogRecordProcessor({
        exporter: logExporter(options.url, exporterTimeoutMs, options.counters),
        maxQueueSize: MAX_LOG_QUEUE,
        maxExportBatchSize: MAX_LOG_BATCH,
        scheduledDelayMillis: options.intervalMs,
        exportTimeoutMillis: readerTimeoutMs,
      }),
    ],
  });
  const logger = logs.getLogger('treewarden');
  return {
    emit(event) {
      const attributes: Attributes = { 'event.name': event.name };
      for (const [key, value] of Object.entries(event.attributes))
        if (options.sessionLabels || !key.startsWith('process.')) attributes[key] = value;
      if (event.sessionId !== null) attributes['session.id'] = event.sessionId;
      logger.emit({ eventName: event.name, body: event.name, attributes });
    },
    async shutdown() {
      await Promise.allSettled([meters.shutdown(), logs.shutdown()]);
    },
  };
}
