/**
 * The exporter switch in the app bar: Prometheus `/metrics` on a loopback port (and an optional
 * OTLP push), run by the host from its own observer and saved in its state dir. The form is
 * checked field by field before it is sent; the host's answer (the URL it serves, or why not) is
 * what the popover shows, never what was asked.
 */
import {
  EXPORT_LOOPBACK_HOSTS,
  type ExportStatus,
  MAX_EXPORT_SETTINGS_INTERVAL_SECONDS,
  MIN_EXPORT_SETTINGS_INTERVAL_SECONDS,
} from '@treewarden/protocol';
import { useEffect, useId, useRef, useState } from 'react';
import { type ExportDraft, type ExportField, exportDraftOf, parseExportDraft } from '../model/export-form';
import { send } from '../transport/host';

function FieldError({ id, text }: { id: string; text: string | undefined }) {
  return text === undefined ? null : (
    <span className="field-error" id={`${id}-error`} role="alert">
      {text}
    </span>
  );
}

function ExportSettingsForm({ status, onStatus }: { status: ExportStatus; onStatus(status: ExportStatus): void }) {
  const [draft, setDraft] = useState<ExportDraft>(() => exportDraftOf(status.settings));
  const [errors, setErrors] = useState<Partial<Record<ExportField, string>>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const idPrefix = useId();
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);
  const id = (field: ExportField) => `${idPrefix}-${field}`;
  const described = (field: ExportField) =>
    errors[field] === undefined ? {} : { 'aria-invalid': true, 'aria-describedby': `${id(field)}-error` };

  async function submit() {
    const parsed = parseExportDraft(draft);
    if (!parsed.ok) {
      setErrors(parsed.errors);
      return;
    }
    setErrors({});
    setBusy(true);
    const reply = await send<'setExportSettings'>({ type: 'setExportSettings', settings: parsed.settings });
    setBusy(false);
    if (reply.ok) {
      setFailure(null);
      onStatus(reply.result);
    } else setFailure(reply.error);
  }

  return (
    <form
      noValidate
      className="flag-settings export-settings"
      aria-label="Metrics export"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <p className="muted">Prometheus /metrics on this machine only; OTLP push optional.</p>
      <div className="flag-field">
        <label htmlFor={id('enabled')}>Serve metrics</label>
        <input
          ref={first}
          id={id('enabled')}
          type="checkbox"
          checked={draft.enabled}
          onChange={(event) => setDraft({ ...draft, enabled: event.target.checked })}
        />
      </div>
      <div className={`flag-field${errors.listenHost || errors.listenPort ? ' invalid' : ''}`}>
        <label htmlFor={id('listenHost')}>Listen on</label>
        <select
          id={id('listenHost')}
          value={draft.listenHost}
          onChange={(event) => setDraft({ ...draft, listenHost: event.target.value })}
        >
          {EXPORT_LOOPBACK_HOSTS.map((host) => (
            <option key={host} value={host}>
              {host}
            </option>
          ))}
        </select>
        <input
          id={id('listenPort')}
          aria-label="Port"
          type="number"
          min={1024}
          max={65535}
          value={draft.listenPort}
          {...described('listenPort')}
          onChange={(event) => setDraft({ ...draft, listenPort: event.target.value })}
        />
        <FieldError id={id('listenPort')} text={errors.listenPort} />
      </div>
      <div className={`flag-field${errors.otlpUrl ? ' invalid' : ''}`}>
        <label htmlFor={id('otlpUrl')}>OTLP URL</label>
        <input
          id={id('otlpUrl')}
          type="url"
          placeholder="none (http://collector:4318)"
          value={draft.otlpUrl}
          {...described('otlpUrl')}
          onChange={(event) => setDraft({ ...draft, otlpUrl: event.target.value })}
        />
        <FieldError id={id('otlpUrl')} text={errors.otlpUrl} />
      </div>
      <div className={`flag-field${errors.intervalSeconds ? ' invalid' : ''}`}>
        <label htmlFor={id('intervalSeconds')}>Push every</label>
        <input
          id={id('intervalSeconds')}
          type="number"
          min={MIN_EXPORT_SETTINGS_INTERVAL_SECONDS}
          max={MAX_EXPORT_SETTINGS_INTERVAL_SECONDS}
          value={draft.intervalSeconds}
          {...described('intervalSeconds')}
          onChange={(event) => setDraft({ ...draft, intervalSeconds: event.target.value })}
        />
        <span className="muted">s</span>
        <FieldError id={id('intervalSeconds')} text={errors.intervalSeconds} />
      </div>
      <div className="flag-field">
        <label htmlFor={id('sessionLabels')}>Session ids as labels</label>
        <input
          id={id('sessionLabels')}
          type="checkbox"
          checked={draft.sessionLabels}
          onChange={(event) => setDraft({ ...draft, sessionLabels: event.target.checked })}
        />
      </div>
      <p className="muted" data-testid="export-status" role="status">
        {status.url !== null ? `Serving ${status.url}` : status.error !== null ? status.error : 'Off'}
      </p>
      {failure !== null ? (
        <p className="field-error" role="alert">
          {failure}
        </p>
      ) : null}
      <div className="flag-actions">
        <button type="submit" className="btn btn-xs btn-primary" disabled={busy}>
          Apply
        </button>
      </div>
    </form>
  );
}

export function ExportSettingsButton() {
  const [open, setOpen] = useState(false);
  const [status, setStatus] = useState<ExportStatus | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    if (!open) return;
    let current = true;
    void send<'getExportSettings'>({ type: 'getExportSettings' }).then((reply) => {
      if (!current) return;
      if (reply.ok) setStatus(reply.result);
      else setFailure(reply.error);
    });
    return () => {
      current = false;
    };
  }, [open]);
  return (
    <div className="flag-settings-anchor">
      <button
        type="button"
        className="btn btn-sm btn-ghost"
        aria-expanded={open}
        title="Prometheus and OpenTelemetry export of sessions, leaks, alerts and kills"
        onClick={() => setOpen(!open)}
      >
        Export…
      </button>
      {open && status !== null ? <ExportSettingsForm status={status} onStatus={setStatus} /> : null}
      {open && status === null && failure !== null ? (
        <p className="flag-settings field-error" role="alert">
          {failure}
        </p>
      ) : null}
    </div>
  );
}
