/**
 * The exporter as the app and `serve` switch it on from their settings: the same `/metrics` and
 * OTLP push as `treewarden export`, run in the host from its own observer. The UI is untrusted, so
 * it can only ask for a loopback listen address (a remote one takes the CLI's explicit
 * `--allow-remote` and a token file), and an OTLP URL that is plain http(s) without credentials.
 */
import { z } from 'zod';

/** The only listen hosts a UI may ask for. */
export const EXPORT_LOOPBACK_HOSTS = ['127.0.0.1', '::1', 'localhost'] as const;
/** Prometheus' registered default exporter port range is 9100–9999; 9464 is OTel's Prometheus port. */
export const DEFAULT_EXPORT_PORT = 9464;
export const MIN_EXPORT_SETTINGS_INTERVAL_SECONDS = 1;
export const MAX_EXPORT_SETTINGS_INTERVAL_SECONDS = 3600;
const MAX_URL_LENGTH = 2048;

function isPlainHttpUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '';
}

export const exportSettingsSchema = z
  .object({
    enabled: z.boolean(),
    listenHost: z.enum(EXPORT_LOOPBACK_HOSTS),
    /** 1024 and up: a UI never binds a privileged port; 0 is not offered (the URL would change each start). */
    listenPort: z.number().int().min(1024).max(65_535),
    /** Base URL of an OTLP/HTTP collector (`/v1/metrics`, `/v1/logs` are added); null: no push. */
    otlpUrl: z
      .string()
      .max(MAX_URL_LENGTH)
      .refine(isPlainHttpUrl, 'an http:// or https:// URL without user or password')
      .nullable(),
    intervalSeconds: z
      .number()
      .int()
      .min(MIN_EXPORT_SETTINGS_INTERVAL_SECONDS)
      .max(MAX_EXPORT_SETTINGS_INTERVAL_SECONDS),
    sessionLabels: z.boolean(),
  })
  .strict();
export type ExportSettings = z.infer<typeof exportSettingsSchema>;

export const DEFAULT_EXPORT_SETTINGS: ExportSettings = {
  enabled: false,
  listenHost: '127.0.0.1',
  listenPort: DEFAULT_EXPORT_PORT,
  otlpUrl: null,
  intervalSeconds: 15,
  sessionLabels: false,
};

/** The settings in force and what came of them. */
export const exportStatusSchema = z
  .object({
    settings: exportSettingsSchema,
    /** The scrape URL while serving; null while off or when starting failed. */
    url: z.string().nullable(),
    /** Why it is not serving though enabled (port in use, state dir unwritable, a bad saved file). */
    error: z.string().nullable(),
  })
  .strict();
export type ExportStatus = z.infer<typeof exportStatusSchema>;
