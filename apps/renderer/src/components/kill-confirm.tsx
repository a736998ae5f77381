/**
 * Every kill passes through this confirmation, which repeats the exact identity the user saw and
 * lists what the kill would end: the host's preview finds them the way the kill does (the tree by
 * identity and the run cookie's escapees), signalling nothing. The kill re-reads before acting.
 */
import type { CommandResult } from '@treewarden/protocol';
import { useEffect, useState } from 'react';
import { requestKillTree } from '../actions/actions';
import { shortenCommandLine } from '../model/format';
import { identityKey } from '../model/identity';
import { useAppStore } from '../store/store';
import type { KillRequest } from '../store/types';
import { send } from '../transport/host';
import { ClockTime } from './clock-time';
import { ConfirmDialog } from './confirm-dialog';

type Preview = CommandResult<'previewKill'>;
type PreviewState = { readonly key: string } & (
  | { readonly status: 'reading' }
  | { readonly status: 'read'; readonly preview: Preview }
  | { readonly status: 'failed'; readonly error: string }
);

/** Asks the host what the kill of `request` would end, again whenever the request changes. */
function useKillPreview(request: KillRequest | null): PreviewState | null {
  const [state, setState] = useState<PreviewState | null>(null);
  const key = request === null ? null : identityKey(request.target);
  useEffect(() => {
    if (request === null || key === null) return;
    let current = true;
    setState({ key, status: 'reading' });
    void send<'previewKill'>({ type: 'previewKill', target: request.target }).then((reply) => {
      if (!current) return;
      setState(
        reply.ok ? { key, status: 'read', preview: reply.result } : { key, status: 'failed', error: reply.error },
      );
    });
    return () => {
      current = false;
    };
  }, [key, request]);
  return state !== null && state.key === key ? state : null;
}

function PreviewList({ state }: { state: PreviewState | null }) {
  if (state === null || state.status === 'reading')
    return (
      <p className="muted" data-testid="kill-preview-reading">
        Reading what this would end…
      </p>
    );
  if (state.status === 'failed')
    return (
      <p className="muted" data-testid="kill-preview-failed">
        Could not list what this would end ({state.error}); the kill still re-reads the tree and ends only it.
      </p>
    );
  const { preview } = state;
  if (preview.refused !== null)
    return (
      <p data-testid="kill-preview-refused">It would be refused: {preview.refused}. Nothing would be signalled.</p>
    );
  const count = preview.processes.length;
  const escapees = preview.processes.filter((process) => process.outsideTree).length;
  return (
    <>
      <p data-testid="kill-preview-count">
        This ends <strong>{count === 1 ? '1 process' : `${count} processes`}</strong>
        {escapees > 0 ? `, ${escapees} of them outside the tree (found by the run cookie)` : ''}:
      </p>
      <ul
        className="dialog-list kill-list"
        data-testid="kill-targets"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard to scroll
        tabIndex={0}
        aria-label="Processes this kill ends"
      >
        {preview.processes.map((process) => (
          <li key={`${process.pid}:${process.startTime}`} className="kill-target" data-pid={process.pid}>
            pid <strong>{process.pid}</strong>{' '}
            <span className="muted">
              started <ClockTime atMs={process.startedAtMs} withDay />
            </span>{' '}
            {process.outsideTree ? (
              <span className="kill-escapee" title="Not a descendant of the target: it carries the run's cookie">
                escaped · found by run cookie
              </span>
            ) : null}{' '}
            <code title={process.commandLine}>{shortenCommandLine(process.commandLine)}</code>
          </li>
        ))}
        {count === 0 ? <li className="muted">Nothing is alive any more; nothing will be signalled.</li> : null}
      </ul>
    </>
  );
}

export function KillConfirm() {
  const request = useAppStore((state) => state.confirmKill);
  const askKill = useAppStore((state) => state.askKill);
  const preview = useKillPreview(request);
  const confirm = () => {
    if (!request) return;
    askKill(null);
    void requestKillTree(request);
  };
  const subtree = request?.scope === 'subtree';
  return (
    <ConfirmDialog
      label="Confirm kill"
      open={request !== null}
      title={`Kill ${subtree ? 'this subtree' : 'this tree'}?`}
      confirmLabel={`Kill ${subtree ? 'subtree' : 'tree'}`}
      onConfirm={confirm}
      onCancel={() => askKill(null)}
      // Decided on the list of what dies, not before it shows: the list also moves the button down.
      confirmWaitReason={preview === null || preview.status === 'reading' ? 'Reading what this would end…' : null}
    >
      {request ? (
        <>
          <p>
            pid <strong>{request.target.pid}</strong>
            {request.startedAtMs !== undefined ? (
              <>
                {' '}
                started{' '}
                <strong data-testid="kill-started">
                  <ClockTime atMs={request.startedAtMs} withDay />
                </strong>
              </>
            ) : null}{' '}
            <span className="muted">(identity {request.target.startTime})</span>
          </p>
          <p className="dialog-command">
            <code>{request.command}</code>
          </p>
          <PreviewList state={preview} />
          <p className="muted">
            Treewarden re-reads the process table first and refuses if this pid is no longer the process you saw. It
            sends SIGTERM, waits, then SIGKILL to every owned group, deepest first, and verifies.
          </p>
        </>
      ) : null}
    </ConfirmDialog>
  );
}
