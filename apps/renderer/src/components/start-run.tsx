/**
 * "New run": a command line split as a shell splits words (quotes, backslashes; no expansion,
 * no operators), extra arguments one per line, cwd, timeout, lease and optional limits. The form
 * shows how the line was split before anything starts.
 */
import { MAX_TIMEOUT_SECONDS, MIN_TIMEOUT_SECONDS } from '@treewarden/protocol';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { requestStartRun } from '../actions/actions';
import { splitCommandLine } from '../model/split-command';
import { useAppStore } from '../store/store';
import { CgroupField } from './cgroup-field';
import { LimitFields, type LimitTexts, NO_LIMITS, readLimits } from './limit-fields';
import { syncDialog } from './sync-dialog';

const DEFAULT_TIMEOUT_SECONDS = 60;

export function parseArgs(text: string): string[] {
  return text.split('\n').filter((line) => line.length > 0);
}

/** The program and its arguments from the command line plus the extra-arguments field, or what is wrong. */
export function buildArgv(commandLine: string, extraArgs: string): { argv: string[] } | { error: string } {
  const split = splitCommandLine(commandLine);
  if (!split.ok) return { error: `Command line: ${split.error}.` };
  const argv = [...split.argv, ...parseArgs(extraArgs)];
  if (split.argv.length === 0) return { error: 'Enter the program to run, e.g. node worker.mjs or /usr/bin/make.' };
  return { argv };
}

/** How the command line will be split, word by word, so a surprise shows before the start. */
function ArgvPreview({ commandLine, extraArgs }: { commandLine: string; extraArgs: string }) {
  if (commandLine.trim() === '') return null;
  const built = buildArgv(commandLine, extraArgs);
  if ('error' in built)
    return (
      <div className="muted" data-testid="argv-preview">
        {built.error}
      </div>
    );
  return (
    <output className="argv-preview" data-testid="argv-preview" aria-label="How the command line is split">
      <span className="muted">Runs </span>
      {built.argv.map((word, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: words repeat; their position is their identity
        <code key={index} className="argv-word" title={index === 0 ? 'program' : `argument ${index}`}>
          {word}
        </code>
      ))}
    </output>
  );
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
  const [ownCgroup, setOwnCgroup] = useState(false);
  const cgroupCapability = useAppStore((state) => state.snapshot?.capabilities?.cgroup);

  useEffect(() => {
    syncDialog(dialog.current, open);
  }, [open]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const timeoutError = validateTimeout(timeout);
    const built = buildArgv(command, args);
    if ('error' in built) return setError(built.error);
    if (timeoutError) return setError(timeoutError);
    const { limits, error: limitError } = readLimits(limitTexts);
    if (limitError !== undefined) return setError(limitError);
    setError(null);
    const [program = '', ...programArgs] = built.argv;
    const started = await requestStartRun({
      command: program,
      args: programArgs,
      cwd: cwd.trim(),
      timeoutSeconds: Number(timeout),
      leaseName: leaseName.trim(),
      ...(limits === undefined ? {} : { limits }),
      // Only where the host says it can: a box ticked before the capability vanished sends nothing.
      ...(ownCgroup && cgroupCapability?.available === true ? { cgroup: true } : {}),
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
          <TextField
            label="Command line (split like a shell: quotes work; no pipes, no $VARS)"
            name="command"
            value={command}
            onChange={setCommand}
            placeholder="node worker.mjs --verbose"
          />
          <ArgvPreview commandLine={command} extraArgs={args} />
          <label className="field">
            <span>More arguments, one per line, passed as they are</span>
            <textarea
              name="args"
              rows={3}
              value={args}
              onChange={(e) => setArgs(e.target.value)}
              placeholder={'--message\ntext with spaces'}
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
          <CgroupField capability={cgroupCapability} checked={ownCgroup} onChange={setOwnCgroup} />
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
