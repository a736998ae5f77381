/**
 * The exporter the app and `serve` run from their settings: the same exporter as `treewarden
 * export`, on the host's own events (no second poller or observer). The settings are saved in the
 * state dir (`export-settings.json`, private to the user, written whole then renamed) and read back
 * through the same schema the UI's command is checked with: a damaged or hand-edited file is
 * ignored with the reason shown, never half-believed.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEFAULT_EXPORT_SETTINGS,
  type ExportSettings,
  type ExportStatus,
  exportSettingsSchema,
} from '@treewarden/protocol';
import type { ExportControl } from '../context.js';
import { type EventSource, type Exporter, startExporterOn } from './exporter.js';

export const EXPORT_SETTINGS_FILE = 'export-settings.json';
const PRIVATE_FILE_MODE = 0o600;

export interface ExportControlOptions {
  /** Where the settings are saved; null: nowhere (they hold until the host closes). */
  readonly stateDir: string | null;
  readonly host: EventSource;
  /** Start the saved settings now, if they say enabled (the app and `serve`; not `export` itself). */
  readonly startSaved: boolean;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function readSaved(file: string | null): { settings: ExportSettings; error: string | null } {
  if (file === null || !existsSync(file)) return { settings: DEFAULT_EXPORT_SETTINGS, error: null };
  try {
    const parsed = exportSettingsSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (parsed.success) return { settings: parsed.data, error: null };
    return {
      settings: DEFAULT_EXPORT_SETTINGS,
      error: `saved export settings ignored: ${parsed.error.issues[0]?.message}`,
    };
  } catch (error) {
    return { settings: DEFAULT_EXPORT_SETTINGS, error: `saved export settings ignored: ${errorText(error)}` };
  }
}

function save(file: string | null, settings: ExportSettings): void {
  if (file === null) return;
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(settings, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  renameSync(temporary, file);
}

function scrapeUrl(settings: ExportSettings, port: number): string {
  const host = settings.listenHost.includes(':') ? `[${settings.listenHost}]` : settings.listenHost;
  return `http://${host}:${port}/metrics`;
}

export function createExportControl(options: ExportControlOptions): ExportControl {
  const file = options.stateDir === null ? null : join(options.stateDir, EXPORT_SETTINGS_FILE);
  const saved = readSaved(file);
  let settings = saved.settings;
  let error = saved.error;
  let running: { exporter: Exporter; url: string } | null = null;
  // One change at a time: a second apply waits for the first to have stopped and started.
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;

  const status = (): ExportStatus => ({ settings, url: running?.url ?? null, error });

  async function restart(): Promise<void> {
    const previous = running;
    running = null;
    await previous?.exporter.close();
    if (!settings.enabled || closed) return;
    try {
      const exporter = await startExporterOn(options.host, {
        listen: { host: settings.listenHost, port: settings.listenPort },
        token: null,
        otlp: settings.otlpUrl === null ? null : new URL(settings.otlpUrl),
        intervalSeconds: settings.intervalSeconds,
        sessionLabels: settings.sessionLabels,
      });
      running = { exporter, url: scrapeUrl(settings, exporter.server.port) };
    } catch (failure) {
      error = errorText(failure);
    }
  }

  const enqueue = <T>(step: () => Promise<T>): Promise<T> => {
    const next = queue.then(step, step);
    queue = next.catch(() => undefined);
    return next;
  };

  if (options.startSaved && settings.enabled) void enqueue(restart);

  return {
    status,
    apply(wanted) {
      return enqueue(async () => {
        if (closed) throw new Error('the host is closing: the export settings were not changed');
        try {
          save(file, wanted);
        } catch (failure) {
          // Not saved: nothing changes, so what runs is still what the file says.
          error = `export settings not saved: ${errorText(failure)}`;
          return status();
        }
        settings = wanted;
        error = null;
        await restart();
        return status();
      });
    },
    close() {
      closed = true;
      return enqueue(async () => {
        const previous = running;
        running = null;
        await previous?.exporter.close();
      });
    },
  };
}
