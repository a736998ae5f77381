/** The selected process of a run: its own identity, place in the tree, argv, cwd and why it is a member. */
import type { ProcessNode } from '@treewarden/protocol';
import { type HistorySource, useSamples } from '../hooks/use-samples';
import { formatBytes } from '../model/format';
import { identityKey } from '../model/identity';
import { formatSocket } from '../model/ports';
import { stateName } from './badges';
import { ClockTime } from './clock-time';
import { Prose } from './prose';
import { ResourceChart } from './resource-chart';
import { CopyButton } from './run-id';

/** "Listening": every socket the process listens on, as `tcp 127.0.0.1:3000`, or "none seen". */
export function ListeningLine({ node }: { node: ProcessNode }) {
  const sockets = node.listening ?? [];
  return (
    <>
      <dt>Listening</dt>
      <dd data-testid="process-listening">
        {sockets.length === 0 ? (
          <span className="muted">no listening socket seen</span>
        ) : (
          sockets.map((socket) => (
            <code key={formatSocket(socket)} className="socket">
              {formatSocket(socket)}
            </code>
          ))
        )}
      </dd>
    </>
  );
}

/** CPU and memory of one process over the kept window. */
export function ProcessChart({ node, source }: { node: ProcessNode; source: HistorySource }) {
  const samples = useSamples(source, identityKey(node));
  return <ResourceChart samples={samples} what={`process ${node.pid}`} />;
}

export function ProcessDetails({ node, rootPid }: { node: ProcessNode; rootPid: number | null }) {
  const evidence = node.evidence ?? [];
  return (
    <section className="details-section process-details" aria-label={`Process ${node.pid}`}>
      <h4>
        Process {node.pid}
        {node.pid === rootPid ? ' · run root' : ''}
      </h4>
      <dl className="kv kv-tight">
        <dt>Identity</dt>
        <dd>
          pid {node.pid} · started{' '}
          <span data-testid="process-started">
            <ClockTime atMs={node.startedAtMs} withDay />
          </span>{' '}
          <span className="muted" title="Start time in clock ticks since boot: the kernel's half of the identity">
            ({node.startTime})
          </span>
        </dd>
        <dt>Parent</dt>
        <dd>pid {node.ppid}</dd>
        <dt>Group · session</dt>
        <dd>
          pgid {node.pgid} · sid {node.sid}
          {node.escaped ? <span className="muted"> · escaped into its own {node.escapedInto ?? 'group'}</span> : null}
        </dd>
        <dt>User</dt>
        <dd>uid {node.uid}</dd>
        <dt>State</dt>
        <dd>
          {stateName(node.state)} <span className="muted">({node.state})</span> · {formatBytes(node.rssBytes)}
        </dd>
        <ListeningLine node={node} />
        <dt>Command line</dt>
        <dd className="with-copy">
          <code className="wrap">{node.commandLine}</code>
          <CopyButton text={node.commandLine} what="command line" />
        </dd>
        <dt>Working dir</dt>
        <dd>
          <code className="wrap">{node.cwd ?? 'unreadable (another user, or already gone)'}</code>
        </dd>
        <dt>Why a member</dt>
        <dd>
          {evidence.length === 0 ? (
            <span className="muted">The host sent no membership evidence for this process.</span>
          ) : (
            <ul className="evidence">
              {evidence.map((line) => (
                <li key={line}>
                  <Prose text={line} />
                </li>
              ))}
            </ul>
          )}
        </dd>
      </dl>
      <ProcessChart node={node} source="run" />
    </section>
  );
}
