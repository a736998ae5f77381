/**
 * One agent session: agent, directory, age and state, CPU and memory totals and their curves, its
 * process tree with role badges (MCP server, shell, dev server, browser, subagent); while it lives,
 * its pile-ups with a "Trim…" that lists what it will signal first; once it ended,
 * the members it leaked with their evidence and a "Clean up" that first lists what it will signal.
 */
import type { OrphanView, SessionView as Session, SessionProcess } from '@treewarden/protocol';
import { useShallow } from 'zustand/react/shallow';
import { agentCleanKey, confirmAgentClean, containerStopKey } from '../actions/agent-actions';
import { useNow } from '../hooks/use-now';
import { useSamples } from '../hooks/use-samples';
import { ROLE_LABELS } from '../model/agent-leaks';
import { formatBytes, formatDuration, formatFullDateTime, formatPercent, shortenCommandLine } from '../model/format';
import { identityKey } from '../model/identity';
import { alertsOf } from '../model/session-alerts';
import { containerLeftovers } from '../model/session-containers';
import { isCurveFinal } from '../model/session-samples';
import { sessionRowsInTreeOrder } from '../model/session-tree';
import { sessionLabel } from '../model/side-labels';
import { useAppStore } from '../store/store';
import { Prose } from './prose';
import { SessionAlerts } from './session-alerts';
import { SessionContainers } from './session-containers';
import { SessionChart } from './session-curves';
import { Sparkline } from './sparkline';

/** Indentation per tree level, in characters. */
const INDENT_CH = 2;

function SessionFacts({ session }: { session: Session }) {
  const now = useNow();
  const started = Date.parse(session.startedAt);
  const ended = session.endedAt === null ? null : Date.parse(session.endedAt);
  return (
    <div className="session-facts">
      <span>agent {session.agent}</span>
      <span title={session.cwd ?? undefined}>in {session.cwd ?? 'an unknown directory'}</span>
      <span>root pid {session.root.pid}</span>
      <span title={ended === null ? `started ${formatFullDateTime(started)}` : `ended ${formatFullDateTime(ended)}`}>
        {ended === null ? `running ${formatDuration(now - started)}` : `ended ${formatDuration(now - ended)} ago`}
      </span>
      <span data-testid="session-totals">
        CPU {session.cpuPercent === undefined ? '—' : `${formatPercent(session.cpuPercent)}%`} · memory{' '}
        {formatBytes(session.rssBytes)}
      </span>
    </div>
  );
}

/**
 * What the ended session left: processes and still-running containers. "Clean up" ends the
 * processes and stops the strongly attributed containers; weakly attributed containers (known only
 * by their compose dir or a bind mount) wait for "Clean up all", like `orphans --clean --all`.
 */
function SessionLeaks({ session, leaks }: { session: Session; leaks: OrphanView[] }) {
  const cleaning = useAppStore(
    (state) => agentCleanKey(session.id) in state.pending || containerStopKey(session.id) in state.pending,
  );
  const containers = containerLeftovers(session);
  const left = leaks.length + containers.strong.length + containers.weak.length;
  if (left === 0) return null;
  const what = [
    leaks.length > 0 ? `${leaks.length} member${leaks.length === 1 ? '' : 's'}` : null,
    containers.strong.length + containers.weak.length > 0
      ? `${containers.strong.length + containers.weak.length} container${containers.strong.length + containers.weak.length === 1 ? '' : 's'}`
      : null,
  ]
    .filter((part) => part !== null)
    .join(' and ');
  const canClean = leaks.length + containers.strong.length > 0;
  return (
    <section className="session-leaks" data-testid="session-leaks" aria-label="Leaked members">
      <div className="session-leaks-head">
        <div>
          <strong>{what} outlived the session</strong>
          {leaks[0]?.reasons[0] ? (
            <span className="muted">
              {' — '}
              <Prose text={leaks[0].reasons[0]} />
            </span>
          ) : null}
        </div>
        {canClean ? (
          <button
            type="button"
            className="btn btn-danger"
            disabled={cleaning}
            onClick={() => confirmAgentClean(leaks, { sessionId: session.id, containers: containers.strong })}
            title="Lists what it will signal or stop first; each process and container is identity-checked again before anything"
          >
            {cleaning ? 'Cleaning…' : 'Clean up'}
          </button>
        ) : null}
        {containers.weak.length > 0 ? (
          <button
            type="button"
            className="btn"
            data-testid="clean-all-containers"
            disabled={cleaning}
            onClick={() =>
              confirmAgentClean(leaks, {
                sessionId: session.id,
                containers: [...containers.strong, ...containers.weak],
              })
            }
            title="Also the containers known only by their compose directory or a bind mount of the session directory"
          >
            Clean up all, weak too
          </button>
        ) : null}
      </div>
      <ul className="dialog-list">
        {leaks.map((orphan) => (
          <li key={`${orphan.process.pid}:${orphan.process.startTime}`}>
            pid <strong>{orphan.process.pid}</strong>{' '}
            <span className={`role role-${orphan.role ?? 'other'}`}>{ROLE_LABELS[orphan.role ?? 'other']}</span>{' '}
            <code>{shortenCommandLine(orphan.process.commandLine)}</code>
            <div className="session-evidence">
              <Prose text={orphan.reasons.slice(1).join(' · ')} />
            </div>
          </li>
        ))}
        {[...containers.strong, ...containers.weak].map((container) => (
          <li key={container.id} data-testid="leftover-container" data-strength={container.strength}>
            container <strong>{container.name}</strong> <span className="muted">{container.image}</span>{' '}
            <code>{container.id.slice(0, 12)}</code> · {container.strength}
            {container.strength === 'weak' ? <span className="muted"> (only with “Clean up all”)</span> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** One process of the session: pid, role, ports, command, its own CPU curve, CPU and memory now. */
function SessionProcRow({
  node,
  depth,
  leaked,
  alerted,
}: {
  node: SessionProcess;
  depth: number;
  leaked: boolean;
  /** In a pile-up alert of the live session (what a Trim would end). */
  alerted: boolean;
}) {
  const samples = useSamples('run', identityKey(node));
  return (
    <tr
      className={`session-proc${leaked ? ' leaked' : ''}${alerted ? ' alerted' : ''}`}
      data-testid="session-proc"
      data-role={node.role}
      data-alerted={alerted ? 'true' : undefined}
      title={alerted ? 'In a pile-up alert of this live session' : undefined}
    >
      <td className="num">{node.pid}</td>
      <td>
        <span className={`role role-${node.role}`} style={{ marginLeft: `${depth * INDENT_CH}ch` }}>
          {ROLE_LABELS[node.role]}
        </span>
      </td>
      <td className="session-cmd-cell">
        <div className="session-cmd">
          {[...new Set(node.listening?.map((socket) => socket.port))].map((port) => (
            <span key={port} className="badge port-chip" title={`listening on TCP port ${port}`}>
              :{port}
            </span>
          ))}
          <code title={node.commandLine}>{shortenCommandLine(node.commandLine)}</code>
        </div>
      </td>
      <td className="session-spark">
        {samples.length > 1 ? <Sparkline samples={samples} kind="cpu" className="row-spark" /> : null}
      </td>
      <td className="num">{node.cpuPercent === undefined ? '—' : `${formatPercent(node.cpuPercent)}%`}</td>
      <td className="num">{formatBytes(node.rssBytes)}</td>
    </tr>
  );
}

/** The session's live processes as a table: real column headers, rows in tree order (indented roles). */
function SessionTree({ session, leaked }: { session: Session; leaked: ReadonlySet<number> }) {
  const rows = sessionRowsInTreeOrder(session.processes);
  // By identity: a recycled pid is not the alerted process.
  const alerted = new Set(alertsOf(session).flatMap((alert) => alert.processes.map(identityKey)));
  if (rows.length === 0) return <div className="side-empty">None of its processes is alive.</div>;
  return (
    <table className="session-tree" aria-label="Session processes" data-testid="session-tree">
      <colgroup>
        <col className="col-pid" />
        <col className="col-role" />
        <col />
        <col className="col-trend" />
        <col className="col-cpu" />
        <col className="col-mem" />
      </colgroup>
      <thead>
        <tr>
          <th scope="col" className="num">
            PID
          </th>
          <th scope="col">Role</th>
          <th scope="col">Command</th>
          <th scope="col">CPU trend</th>
          <th scope="col" className="num">
            CPU
          </th>
          <th scope="col" className="num">
            Memory
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map(({ node, depth }) => (
          <SessionProcRow
            key={identityKey(node)}
            node={node}
            depth={depth}
            leaked={leaked.has(node.pid)}
            alerted={alerted.has(identityKey(node))}
          />
        ))}
      </tbody>
    </table>
  );
}

export function SessionView() {
  const { session, count, gone } = useAppStore(
    useShallow((state) => {
      const sessions = state.snapshot?.sessions ?? [];
      const chosen = state.selectedSessionId;
      const found = chosen === null ? undefined : sessions.find((candidate) => candidate.id === chosen);
      // A chosen session that left the list (ended, nothing of it left, e.g. after its clean-up)
      // is said to be gone: jumping to another session would show an unrelated one as the answer.
      return {
        session: found ?? (chosen === null ? (sessions[0] ?? null) : null),
        count: sessions.length,
        gone: chosen !== null && found === undefined ? chosen : null,
      };
    }),
  );
  const leaks = useAppStore(
    useShallow((state) =>
      (state.snapshot?.orphans ?? []).filter((orphan) => orphan.kind === 'agent' && orphan.sessionId === session?.id),
    ),
  );
  if (gone !== null)
    return (
      <div className="placeholder" data-testid="session-gone">
        Session <code>{gone}</code> is no longer listed: it ended and nothing of it is left alive. Choose another
        session in the sidebar.
      </div>
    );
  if (session === null)
    return (
      <div className="placeholder" data-testid="sessions-empty">
        {count === 0
          ? 'No agent sessions seen. While Treewarden runs it notices claude, codex, gemini and the like, however they were started.'
          : 'Choose an agent session in the sidebar.'}
      </div>
    );
  return (
    <div className="session-view" data-testid="session-view" data-session-id={session.id}>
      <div className="session-head">
        <h2>{sessionLabel(session)}</h2>
        <span
          className={`badge ${session.state === 'live' ? 'badge-good' : leaks.length > 0 ? 'badge-bad' : 'badge-warn'}`}
        >
          {session.state}
        </span>
      </div>
      <SessionFacts session={session} />
      <SessionChart sessionId={session.id} startedAtMs={Date.parse(session.startedAt)} final={isCurveFinal(session)} />
      <SessionAlerts session={session} />
      <SessionContainers session={session} />
      <SessionLeaks session={session} leaks={leaks} />
      <SessionTree session={session} leaked={new Set(session.leaked)} />
    </div>
  );
}
