/** Facts about one system process (Enter, click or double-click on a row; Escape closes): the fields a kill decision needs. */
import type { ProcessNode } from '@treewarden/protocol';
import { formatBytes } from '../model/format';
import type { Flag } from '../model/trend';
import { stateName } from './badges';
import { ClockTime } from './clock-time';
import { ListeningLine, ProcessChart } from './process-details';

export function SystemInspector({
  node,
  flags,
  onClose,
}: {
  node: ProcessNode;
  flags: readonly Flag[];
  onClose(): void;
}) {
  return (
    <section
      className="inspector"
      aria-label={`Process ${node.pid}`}
      onKeyDown={(event) => {
        if (event.key !== 'Escape') return;
        event.preventDefault();
        onClose();
      }}
    >
      <header className="details-head">
        <h3>
          pid {node.pid} <span className="muted">{node.command}</span>
        </h3>
        <button type="button" className="btn btn-xs btn-ghost" aria-label="Close" onClick={onClose}>
          ✕
        </button>
      </header>
      <dl className="kv kv-inline">
        <dt>Identity</dt>
        <dd>
          {node.pid} · started <ClockTime atMs={node.startedAtMs} withDay />{' '}
          <span className="muted" title="Start time in clock ticks since boot: the kernel's half of the identity">
            ({node.startTime})
          </span>
        </dd>
        <dt>Parent</dt>
        <dd>{node.ppid}</dd>
        <dt>Group / session</dt>
        <dd>
          {node.pgid} / {node.sid}
        </dd>
        <dt>User</dt>
        <dd>uid {node.uid}</dd>
        <dt>State</dt>
        <dd>{stateName(node.state)}</dd>
        <dt>Memory</dt>
        <dd>{formatBytes(node.rssBytes)}</dd>
        <ListeningLine node={node} />
        {flags.length > 0 ? (
          <>
            <dt>Flagged</dt>
            <dd>{flags.map((flag) => flag.reason).join('; ')} (advice only: nothing is signalled)</dd>
          </>
        ) : null}
        <dt>cwd</dt>
        <dd>
          <code>{node.cwd ?? 'unreadable'}</code>
        </dd>
        <dt>Command line</dt>
        <dd>
          <code className="wrap">{node.commandLine}</code>
        </dd>
      </dl>
      <ProcessChart node={node} source="system" />
    </section>
  );
}
