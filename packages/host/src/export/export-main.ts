/**
 * `treewarden export` as one function: one engine host (its poller and agent observer, the same
 * observer the app and `serve` use) and the exporter on its events; runs until SIGINT/SIGTERM.
 */
import { createEnginePort } from '../engine/binding.js';
import { createEngineHost, type EngineHost } from '../host.js';
import { type Exporter, type ExporterOptions, startExporterOn } from './exporter.js';

export type { Exporter } from './exporter.js';

export const MIN_EXPORT_INTERVAL_SECONDS = 1;
export const MAX_EXPORT_INTERVAL_SECONDS = 3600;
export const DEFAULT_EXPORT_INTERVAL_SECONDS = 15;

export interface ExportOptions extends ExporterOptions {
  /** Injected for tests; by default a host with its own engine port, closed with the exporter. */
  readonly host?: EngineHost;
}

export async function startExporter(options: ExportOptions): Promise<Exporter> {
  if (options.host !== undefined) return startExporterOn(options.host, options);
  // The host's leak watch sees another holder's run leak at the next tick (no system view needed).
  const host = createEngineHost({ port: createEnginePort() });
  let exporter: Exporter;
  try {
    exporter = await startExporterOn(host, options);
  } catch (error) {
    await host.close();
    throw error;
  }
  return {
    server: exporter.server,
    async close() {
      await exporter.close();
      await host.close();
    },
  };
}
