/** "New run": command, arguments (one per line, never shell-parsed), cwd, timeout, lease and optional limits. */
import { MAX_TIMEOUT_SECONDS, MIN_TIMEOUT_SECONDS } from '@treewarden/protocol';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { startRun } from '../actions/actions';
import { useAppStore } from '../store/store';
import { LimitFields, type LimitTexts, NO_LIMITS, readLimits } from './limit-fields';
import { syncDialog } from './sync-dialog';

const DEFAULT_TIMEOUT_SECONDS = 60;

export function parseArgs(text: string): string[] {
  return text.split('\n').filter((line) => line.length > 0);
}

export function validateTimeout(value: string): string | null {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || value.trim() === '') return 'Enter a timeout in seconds.';
  if (seconds < MIN_TIMEOUT_SECONDS || seconds > MAX_TIMEOUT_SECONDS)
    return `Timeout must be between ${MIN_TIMEOUT_SECONDS} and ${MAX_TIMEOUT_SECONDS} seconds.`;
  return null;
}

/** A one-line text field; programs, paths and names are never spell-checked. */
function TextField(props: {
  label: string;
  name: string;
  value: string;
  placeholder: string;
  onChange(value: string): void;
}) {
  return (
    <label className="field">
      <span>{props.label}</span>
      <input
        name={props.name}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        placeholder={props.placeholder}
        spellCheck={false}
      />
    </label>
  );
}

export function StartRunDialog() {
  const open = useAppStore((state) => state.startFormOpen);
  const setOpen = useAppStore((state) => state.setStartFormOpen);
  const starting = useAppStore((state) => 'start' in state.pending);
  const dialog = useRef<HTMLDialogElement>(null);
  const [command, setCommand] = useState('');
  const [args, setArgs] = useState('');
  const [cwd, setCwd] = useState('');
  const [timeout, setTimeoutText] = useState(String(DEFAULT_TIMEOUT_SECONDS));
  const [leaseName, setLeaseName] = useState('');
  const [limitTexts, setLimitTexts] = useState<LimitTexts>(NO_LIMITS);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    syncDialog(dialog.current, open);
  }, [open]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const timeoutError = validateTimeout(timeout);
    if (command.trim() === '') return setError('Enter the program to run, e.g. node or /usr/bin/make.');
    if (timeoutError) return setError(timeoutError);
    const { limits, error: limitError } = readLimits(limitTexts);
    if (limitError !== undefined) return setError(limitError);
    setError(null);
    const started = await startRun({
      command: command.trim(),
      args: parseArgs(args),
      cwd: cwd.trim(),
      timeoutSeconds: Number(timeout),
      leaseName: leaseName.trim(),
      ...(limits === undefined ? {} : { limits }),
    });
    if (started) setOpen(false);
  };

  return (
    <dialog
      ref={dialog}
      className="dialog dialog-form"
      aria-label="Start a run"
      onCancel={() => setOpen(false)}
      onClose={() => setOpen(false)}
    >
      {open ? (
        <form className="dialog-body" onSubmit={submit}>
          <h3>Start a run</h3>
          <TextField label="Command" name="command" value={command} onChange={setCommand} placeholder="node" />
          <label className="field">
            <span>Arguments, one per line (no shell)</span>
            <textarea
              name="args"
              rows={3}
              value={args}
              onChange={(e) => setArgs(e.target.value)}
              placeholder={'worker.mjs\n--verbose'}
              spellCheck={false}
            />
          </label>
          <TextField
            label="Working directory"
            name="cwd"
            value={cwd}
            onChange={setCwd}
            placeholder="(a private run directory)"
          />
          <div className="field-row">
            <label className="field">
              <span>Timeout (s)</span>
              <input
                name="timeout"
                type="number"
                min={MIN_TIMEOUT_SECONDS}
                max={MAX_TIMEOUT_SECONDS}
                value={timeout}
                onChange={(e) => setTimeoutText(e.target.value)}
              />
            </label>
            <TextField label="Lease" name="lease" value={leaseName} onChange={setLeaseName} placeholder="ui" />
          </div>
          <LimitFields texts={limitTexts} onChange={setLimitTexts} />
          {error ? (
            <div className="form-error" role="alert">
              {error}
            </div>
          ) : null}
          <div className="dialog-actions">
            <button type="button" className="btn" onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button type="submit" className="btn btn-primary" disabled={starting}>
              {starting ? 'Starting…' : 'Start run'}
            </button>
          </div>
        </form>
      ) : null}
    </dialog>
  );
}
