/**
 * One row of a process tree, shared by run trees and the virtualised system view. Shows the
 * zombie badge with the parent that has not reaped it, and marks descendants that escaped into
 * their own process group or session.
 */
import type { ProcessNode } from '@treewarden/protocol';
import { memo } from 'react';
import { displayArgs, formatBytes, formatDuration, formatPercent } from '../model/format';
import { identityOf, isZombie } from '../model/identity';
import type { TreeRow } from '../model/tree';
import type { KillRequest } from '../store/types';
import { StateBadge } from './badges';

export interface ProcessRowProps {
  row: TreeRow;
  /** The current node when newer than `row.node` (the system view keeps rows across CPU-only updates). */
  node?: ProcessNode;
  active: boolean;
  collapsed: boolean;
  nowMs: number;
  /** Where the run started (its root), to name how an escaped process left; null in the system view. */
  anchor: ProcessNode | null;
  onActivate(key: string): void;
  onToggle(key: string): void;
  onKill(row: TreeRow): void;
  killPending: boolean;
  id: string;
}

/** The confirmation request for a row's Kill button (or k / Delete), naming the command the user saw. */
export function killRequestOf(node: ProcessNode, scope: KillRequest['scope'], runId: string | null): KillRequest {
  return { target: identityOf(node), command: node.commandLine || node.command, scope, runId };
}

function escapeKind(node: ProcessNode, reference: ProcessNode | null): string {
  if (!reference) return 'own group';
  if (node.sid !== reference.sid) return 'own session';
  if (node.pgid !== reference.pgid) return 'own group';
  return 'own group';
}

export function basename(command: string): string {
  const slash = command.lastIndexOf('/');
  return slash >= 0 ? command.slice(slash + 1) : command;
}

function ProcessRowView(props: ProcessRowProps) {
  const { row, active, collapsed, nowMs, anchor } = props;
  const node = props.node ?? row.node;
  const { parent } = row;
  const zombie = isZombie(node);
  return (
    <div
      id={props.id}
      role="treeitem"
      tabIndex={-1}
      aria-level={row.depth + 1}
      aria-selected={active}
      aria-expanded={row.childCount > 0 ? !collapsed : undefined}
      data-pid={node.pid}
      className={`prow${active ? ' active' : ''}${zombie ? ' zombie' : ''}${node.escaped ? ' escaped' : ''}`}
      onMouseDown={() => props.onActivate(row.key)}
    >
      <div className="cell cell-name">
        <span className="indent" data-depth={row.depth} style={{ width: row.depth * 16 }} />
        {row.childCount > 0 ? (
          <button
            type="button"
            tabIndex={-1}
            className={`twisty${collapsed ? ' closed' : ''}`}
            aria-label={collapsed ? 'Expand' : 'Collapse'}
            onClick={() => props.onToggle(row.key)}
          />
        ) : (
          <span className="twisty-space" />
        )}
        <span className="pname" title={node.commandLine}>
          {basename(node.command)}
        </span>
        <span className="pargs" title={node.commandLine}>
          {displayArgs(node.commandLine)}
        </span>
        {zombie ? (
          <span className="marker marker-zombie">
            not reaped by {node.ppid}
            {parent ? ` ${basename(parent.command)}` : ''}
          </span>
        ) : null}
        {node.escaped ? (
          <span className="marker marker-escaped" title="Left its run's process group or session (setsid / setpgid)">
            ⇱ escaped · {escapeKind(node, anchor ?? parent)}
          </span>
        ) : null}
      </div>
      <div className="cell num">{node.pid}</div>
      <div className="cell">
        <StateBadge state={node.state} />
      </div>
      <div className="cell num">{zombie ? '–' : formatPercent(node.cpuPercent)}</div>
      <div className="cell num">{zombie ? '–' : formatBytes(node.rssBytes)}</div>
      <div className="cell num">{formatDuration(nowMs - node.startedAtMs)}</div>
      <div className="cell cell-actions">
        <button
          type="button"
          tabIndex={-1}
          className="btn btn-xs btn-danger-ghost"
          disabled={props.killPending}
          onClick={() => props.onKill(row)}
          title={`Kill pid ${node.pid} and its descendants (asks first)`}
        >
          {props.killPending ? 'Killing…' : 'Kill'}
        </button>
      </div>
    </div>
  );
}

export const ProcessRow = memo(ProcessRowView);

export function ProcessHeader() {
  return (
    <div className="prow prow-header" role="presentation">
      <div className="cell cell-name">Process</div>
      <div className="cell num">PID</div>
      <div className="cell">State</div>
      <div className="cell num">CPU %</div>
      <div className="cell num">Memory</div>
      <div className="cell num">Age</div>
      <div className="cell cell-actions" />
    </div>
  );
}
