/**
 * The exporter settings form's text, checked with the protocol's own schema before anything is
 * sent (the host checks it again): a bad field is named, nothing is applied.
 */
import { type ExportSettings, exportSettingsSchema } from '@treewarden/protocol';

export interface ExportDraft {
  readonly enabled: boolean;
  readonly listenHost: string;
  readonly listenPort: string;
  readonly otlpUrl: string;
  readonly intervalSeconds: string;
  readonly sessionLabels: boolean;
}

export type ExportField = keyof ExportDraft;

export function exportDraftOf(settings: ExportSettings): ExportDraft {
  return {
    enabled: settings.enabled,
    listenHost: settings.listenHost,
    listenPort: String(settings.listenPort),
    otlpUrl: settings.otlpUrl ?? '',
    intervalSeconds: String(settings.intervalSeconds),
    sessionLabels: settings.sessionLabels,
  };
}

function numberOf(text: string): number {
  return text.trim() === '' ? Number.NaN : Number(text);
}

export function parseExportDraft(
  draft: ExportDraft,
): { ok: true; settings: ExportSettings } | { ok: false; errors: Partial<Record<ExportField, string>> } {
  const parsed = exportSettingsSchema.safeParse({
    enabled: draft.enabled,
    listenHost: draft.listenHost,
    listenPort: numberOf(draft.listenPort),
    otlpUrl: draft.otlpUrl.trim() === '' ? null : draft.otlpUrl.trim(),
    intervalSeconds: numberOf(draft.intervalSeconds),
    sessionLabels: draft.sessionLabels,
  });
  if (parsed.success) return { ok: true, settings: parsed.data };
  const errors: Partial<Record<ExportField, string>> = {};
  for (const issue of parsed.error.issues) {
    const field = issue.path[0];
    if (typeof field === 'string' && field in draft && errors[field as ExportField] === undefined)
      errors[field as ExportField] = issue.message;
  }
  return { ok: false, errors };
}
