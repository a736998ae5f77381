/**
 * The system view's flag thresholds in a small popover: typed text is validated field by field
 * (a bad value is named and nothing is applied), saved per browser, resettable to the defaults.
 */
import { useEffect, useId, useRef, useState } from 'react';
import { DEFAULT_FLAG_SETTINGS, FLAG_FIELD_LIMITS, parseFlagSettings } from '../model/flag-settings';
import type { FlagSettings } from '../model/trend';
import { useAppStore } from '../store/store';

type Field = keyof FlagSettings;
type Draft = Record<Field, string>;

const FIELDS = Object.keys(FLAG_FIELD_LIMITS) as Field[];

function draftOf(settings: FlagSettings): Draft {
  return {
    cpuPercent: String(settings.cpuPercent),
    cpuMinutes: String(settings.cpuMinutes),
    memoryMibPerMinute: String(settings.memoryMibPerMinute),
    memoryMinutes: String(settings.memoryMinutes),
  };
}

function FlagSettingsForm({ onDone }: { onDone(): void }) {
  const settings = useAppStore((state) => state.flagSettings);
  const save = useAppStore((state) => state.setFlagSettings);
  const [draft, setDraft] = useState<Draft>(() => draftOf(settings));
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const idPrefix = useId();
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);

  function submit() {
    const parsed = parseFlagSettings(draft);
    if (!parsed.ok) {
      setErrors(parsed.errors);
      return;
    }
    save(parsed.settings);
    onDone();
  }

  return (
    <form
      // Our own validation names each bad field; the browser's would block the submit silently.
      noValidate
      className="flag-settings"
      aria-label="Flag thresholds"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onDone();
      }}
    >
      <p className="muted">Flags only point; they never end anything.</p>
      {FIELDS.map((field, index) => {
        const { label, unit, min, max } = FLAG_FIELD_LIMITS[field];
        const id = `${idPrefix}-${field}`;
        return (
          <div key={field} className={`flag-field${errors[field] ? ' invalid' : ''}`}>
            <label htmlFor={id}>{label}</label>
            <input
              ref={index === 0 ? first : undefined}
              id={id}
              type="number"
              inputMode="decimal"
              min={min}
              max={max}
              value={draft[field]}
              aria-invalid={errors[field] ? true : undefined}
              aria-describedby={errors[field] ? `${id}-error` : undefined}
              onChange={(event) => setDraft({ ...draft, [field]: event.target.value })}
            />
            <span className="muted">{unit}</span>
            {errors[field] ? (
              <span className="field-error" id={`${id}-error`} role="alert">
                {errors[field]}
              </span>
            ) : null}
          </div>
        );
      })}
      <div className="flag-actions">
        <button
          type="button"
          className="btn btn-xs btn-ghost"
          onClick={() => {
            setDraft(draftOf(DEFAULT_FLAG_SETTINGS));
            setErrors({});
          }}
        >
          Defaults
        </button>
        <button type="button" className="btn btn-xs" onClick={onDone}>
          Cancel
        </button>
        <button type="submit" className="btn btn-xs btn-primary">
          Save
        </button>
      </div>
    </form>
  );
}

export function FlagSettingsButton() {
  const [open, setOpen] = useState(false);
  const settings = useAppStore((state) => state.flagSettings);
  return (
    <div className="flag-settings-anchor">
      <button
        type="button"
        className="btn btn-sm"
        aria-expanded={open}
        title={`Flag a process at CPU ≥ ${settings.cpuPercent} % for ${settings.cpuMinutes} min, or memory growing ≥ ${settings.memoryMibPerMinute} MiB/min over ${settings.memoryMinutes} min`}
        onClick={() => setOpen(!open)}
      >
        Thresholds…
      </button>
      {open ? <FlagSettingsForm onDone={() => setOpen(false)} /> : null}
    </div>
  );
}
