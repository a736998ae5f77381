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
/**
 * The export host's poll follows the export interval, up to this: no view watches it, and data
 * fresher than the scrape is never seen. A root's exit still asks for a tick at once (the poller's
 * root watch), so a session's leftovers are judged within a second of its end either way; a run's
 * lease that died shows at the next tick. At the default 15 s interval every tick is the agent
 * observer's full scan (10 s apart at least), where a 5 s poll added a focused read between two.
 */
export const MAX_EXPORT_POLL_MS = 15_000;

export interface ExportOptions extends ExporterOptions {
  /** Injected for tests; by default a host with its own engine port, closed with the exporter. */
  readonly host?: EngineHost;
}

export async function startExporter(options: ExportOptions): Promise<Exporter> {
  if (options.host !== undefined) return startExporterOn(options.host, options);
  // The host's leak watch sees another holder's run leak at the next tick (no system view needed).
  const pollIntervalMs = Math.min(MAX_EXPORT_POLL_MS, Math.max(1000, options.intervalSeconds * 1000));
  const host = createEngineHost({ port: createEnginePort(), pollIntervalMs });
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
