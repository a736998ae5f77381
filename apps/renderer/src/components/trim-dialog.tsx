/**
 * "Trim": first lists exactly the processes it will signal (pid, start, command line, role) and why
 * they are a pile-up; Cancel has the focus. On "Trim" it sends those identities and then shows the
 * host's answer for each one, including the ones it refused or could not end, never a guess.
 */
import { useEffect, useRef } from 'react';
import { confirmTrim } from '../actions/trim-actions';
import { ROLE_LABELS } from '../model/agent-leaks';
import { identityKey } from '../model/identity';
import { alertLabel, isTrimEnded, plural, summarizeTrim, TRIM_RESULT_WORDS } from '../model/session-alerts';
import { useAppStore } from '../store/store';
import type { TrimProcessResult, TrimRequest, TrimTarget } from '../store/types';
import { ClockTime } from './clock-time';
import { syncDialog } from './sync-dialog';

function TargetLine({ target, result }: { target: TrimTarget; result?: TrimProcessResult | 'unanswered' }) {
  const state =
    result === undefined ? null : result === 'unanswered' ? 'unknown' : isTrimEnded(result.result) ? 'ended' : 'alive';
  return (
    <li className="trim-target" data-testid="trim-target" data-pid={target.pid} data-state={state ?? 'asked'}>
      <div className="trim-target-head">
        pid <strong>{target.pid}</strong>{' '}
        <span className="muted" title={`kernel start time ${target.startTime}`}>
          {target.startedAtMs === null ? (
            `start ${target.startTime}`
          ) : (
            <>
              started <ClockTime atMs={target.startedAtMs} withDay />
            </>
          )}
        </span>
        {target.role ? <span className={`role role-${target.role}`}>{ROLE_LABELS[target.role]}</span> : null}
        {result === undefined ? null : (
          <span className={`trim-result trim-${state}`} data-testid="trim-result">
            {result === 'unanswered'
              ? 'not answered for: state unknown'
              : `${TRIM_RESULT_WORDS[result.result]}${result.detail ? ` (${result.detail})` : ''}`}
          </span>
        )}
      </div>
      <code className="trim-cmd">{target.commandLine ?? 'not in the latest snapshot (it may have ended)'}</code>
    </li>
  );
}

function Results({ request }: { request: TrimRequest }) {
  if (request.error !== null)
    return (
      <p className="trim-refused" data-testid="trim-summary">
        Refused: {request.error}
      </p>
    );
  const results = request.results ?? [];
  const summary = summarizeTrim(request.targets, results);
  const byKey = new Map(results.map((result) => [identityKey(result), result]));
  const extra = results.filter(
    (result) => !request.targets.some((target) => identityKey(target) === identityKey(result)),
  );
  return (
    <>
      <p className={summary.ok ? 'trim-ok' : 'trim-refused'} data-testid="trim-summary">
        {summary.title}
      </p>
      <ul className="dialog-list trim-list">
        {request.targets.map((target) => (
          <TargetLine
            key={identityKey(target)}
            target={target}
            result={byKey.get(identityKey(target)) ?? 'unanswered'}
          />
        ))}
        {extra.map((result) => (
          <TargetLine
            key={identityKey(result)}
            target={{ ...result, startedAtMs: null, commandLine: null, role: null }}
            result={result}
          />
        ))}
      </ul>
    </>
  );
}

/** The alert is still in the latest snapshot (the user may be looking at one that cleared meanwhile). */
function useAlertStillThere(request: TrimRequest | null): boolean {
  return useAppStore((state) => {
    if (request === null) return false;
    const session = state.snapshot?.sessions?.find((candidate) => candidate.id === request.sessionId);
    return session?.alerts?.some((alert) => alert.id === request.alertId) ?? false;
  });
}

export function TrimDialog() {
  const request = useAppStore((state) => state.trim);
  const setTrim = useAppStore((state) => state.setTrim);
  const stillThere = useAlertStillThere(request);
  const dialog = useRef<HTMLDialogElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const open = request !== null;
  useEffect(() => {
    if (syncDialog(dialog.current, open)) cancelButton.current?.focus();
  }, [open]);
  // Closing while the host works would hide its answer: the dialog stays until it came.
  const close = () => {
    if (request?.phase !== 'sending') setTrim(null);
  };
  const title =
    request === null
      ? 'Trim'
      : request.phase === 'done'
        ? `Trim of ${alertLabel(request.kind)}: the host's answer`
        : `Trim ${plural(request.targets.length, 'process', 'processes')} of ${alertLabel(request.kind)}?`;
  return (
    <dialog
      ref={dialog}
      className="dialog trim-dialog"
      aria-label={title}
      onCancel={(event) => {
        event.preventDefault();
        close();
      }}
      onClose={close}
    >
      {request ? (
        <div className="dialog-body">
          <h3>{title}</h3>
          <p className="muted">
            In the live session {request.sessionLabel}: {request.why}
          </p>
          {request.phase === 'done' ? (
            <Results request={request} />
          ) : (
            <>
              {/* While the trim is sent, its own kills clear the alert: that is no warning. */}
              {stillThere || request.phase === 'sending' ? null : (
                <p className="trim-refused" data-testid="trim-stale">
                  This pile-up is no longer alerted in the latest snapshot; the host will refuse what it no longer
                  judges a pile-up.
                </p>
              )}
              <ul className="dialog-list trim-list">
                {request.targets.map((target) => (
                  <TargetLine key={identityKey(target)} target={target} />
                ))}
              </ul>
              <p className="muted">
                Only these processes are signalled, each re-read and identity-checked first; the agent and the rest of
                its session keep running.
              </p>
            </>
          )}
          <div className="dialog-actions">
            <button
              ref={cancelButton}
              type="button"
              className="btn"
              onClick={close}
              disabled={request.phase === 'sending'}
            >
              {request.phase === 'done' ? 'Close' : 'Cancel'}
            </button>
            {request.phase === 'done' ? null : (
              <button
                type="button"
                className="btn btn-danger"
                disabled={request.phase === 'sending'}
                onClick={() => void confirmTrim()}
              >
                {request.phase === 'sending' ? 'Trimming…' : 'Trim'}
              </button>
            )}
          </div>
        </div>
      ) : null}
    </dialog>
  );
}
