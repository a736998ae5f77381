/**
 * One row of a process tree, shared by run trees and the virtualised system view. Shows the
 * zombie badge with the parent that has not reaped it, and marks descendants that escaped into
 * their own process group or session.
 */
import type { ProcessNode } from '@treewarden/protocol';
import { memo, useSyncExternalStore } from 'react';
import { type HistorySource, useSamples } from '../hooks/use-samples';
import { displayArgs, formatBytes, formatDuration, formatPercent } from '../model/format';
import type { Sample } from '../model/history';
import { identityOf, isZombie } from '../model/identity';
import type { MembershipMark } from '../model/membership-marks';
import { formatSocket, shortSocket } from '../model/ports';
import type { TreeRow } from '../model/tree';
import type { Flag } from '../model/trend';
import { clockNow, subscribeClock } from '../store/clock';
import type { KillRequest } from '../store/types';
import { StateBadge } from './badges';
import { Sparkline } from './sparkline';

export interface ProcessRowProps {
  row: TreeRow;
  /** The current node when newer than `row.node` (the system view keeps rows across CPU-only updates). */
  node?: ProcessNode;
  active: boolean;
  collapsed: boolean;
  /** Where the run started (its root), to name how an escaped process left; null in the system view. */
  anchor: ProcessNode | null;
  onActivate(key: string): void;
  onToggle(key: string): void;
  onKill(row: TreeRow): void;
  killPending: boolean;
  id: string;
  /** Whose rings draw the row's CPU curve: the run history (run trees) or the system's. */
  historySource?: HistorySource;
  /** The system view's Ports column. */
  showPorts?: boolean;
  /** Why the system view flags this process (advice only; nothing acts on it). */
  flags?: readonly Flag[];
  /** The system view's mark of what the process belongs to (a run, a session) or that it leaked. */
  membership?: MembershipMark;
}

const FLAG_LABEL: Record<Flag['kind'], string> = { cpu: 'spinning', memory: 'growing' };

function FlagBadges({ flags }: { flags: readonly Flag[] }) {
  return (
    <>
      {flags.map((flag) => (
        <span
          key={flag.kind}
          className={`marker marker-flag marker-flag-${flag.kind}`}
          title={`Flagged: ${flag.reason}`}
        >
          ⚑ {FLAG_LABEL[flag.kind]}
        </span>
      ))}
    </>
  );
}

function PortsCell({ node }: { node: ProcessNode }) {
  const sockets = node.listening ?? [];
  return (
    <div className="cell col-ports" title={sockets.map(formatSocket).join('\n') || 'Not listening'}>
      {sockets.length === 0 ? <span className="muted">–</span> : sockets.map(shortSocket).join(' ')}
    </div>
  );
}

/** The confirmation request for a row's Kill button (or k / Delete), naming the command the user saw. */
export function killRequestOf(node: ProcessNode, scope: KillRequest['scope'], runId: string | null): KillRequest {
  return {
    target: identityOf(node),
    command: node.commandLine || node.command,
    scope,
    runId,
    startedAtMs: node.startedAtMs,
  };
}

/** The host decides the kind once per identity; older hosts only say "escaped", so fall back to a comparison. */
function escapeKind(node: ProcessNode, reference: ProcessNode | null): string {
  if (node.escapedInto) return `own ${node.escapedInto}`;
  return reference && node.sid !== reference.sid ? 'own session' : 'own group';
}

/**
 * Who has not reaped a zombie, in words: the run's guardian (the parent of the run's root, which
 * also adopts orphans), the run's root, its parent by name, or init.
 */
export function reaperName(node: ProcessNode, parent: ProcessNode | null, root: ProcessNode | null): string {
  if (root && node.ppid === root.ppid && root.ppid > 1) return "the lease's guardian";
  if (root && node.ppid === root.pid) return `run root · ${basename(root.command)}`;
  if (parent) return basename(parent.command);
  if (node.ppid === 1) return 'init';
  return 'a process outside this run';
}

/**
 * The name a row shows for a process's command. Only an absolute path is cut to its last segment
 * (macOS `ps` and Windows give the executable's path); on Linux the command is `comm`, a name that
 * may itself hold slashes (`kworker/0:1`, `ksoftirqd/0`) and is shown whole: cutting it showed
 * ksoftirqd/0 as "0".
 */
export function basename(command: string): string {
  const windows = /^[A-Za-z]:\\/.test(command);
  if (!command.startsWith('/') && !windows) return command;
  const cut = Math.max(command.lastIndexOf('/'), windows ? command.lastIndexOf('\\') : -1);
  return cut >= 0 && cut < command.length - 1 ? command.slice(cut + 1) : command;
}

/**
 * The row's CPU curve, a component of its own: a sample pass (one fifth of the system view's rows
 * each second) re-renders the curves it moved, not their whole rows.
 *
 * In All processes a curve is drawn only for a process that used CPU at one of its samples: most
 * of a machine's processes sleep, and a flat line on every row told nothing the CPU column did
 * not, while the page's idle cost rose with each curve on screen (~0.5 points of a core with ~50
 * rows in view: RESULTS.md). A run's or session's rows, few and the user's own, keep every curve.
 */
const RowSpark = memo(function RowSpark({ source, rowKey }: { source: HistorySource; rowKey: string | null }) {
  const samples = useSamples(source, rowKey);
  if (samples.length < 2) return null;
  if (source === 'system' && !samples.some(usedCpu)) return null;
  return <Sparkline samples={samples} kind="cpu" className="row-spark" />;
});

function usedCpu(sample: Sample): boolean {
  return sample.cpuPercent !== null && sample.cpuPercent > 0;
}

/** What a row's Age column shows at `nowMs`. */
export function ageText(node: Pick<ProcessNode, 'startedAtMs'>, nowMs: number): string {
  return formatDuration(nowMs - node.startedAtMs);
}

/**
 * The Age column, its own subscriber to the shared 1 Hz clock (store/clock): its snapshot is the
 * text, so a tick re-renders the cell only when the text changed (an hours-old age moves once a
 * minute), and never the row around it: most rows of a busy machine are under an hour old and
 * show seconds, and each of them re-rendered whole every second for its age alone. Neither the
 * list nor the row reads the clock, so a tick without data re-renders no list either.
 */
function AgeCell({ startedAtMs }: { startedAtMs: number }) {
  const text = useSyncExternalStore(subscribeClock, () => ageText({ startedAtMs }, clockNow()));
  return (
    <div className="cell num col-age">
      <span className="cell-value">{text}</span>
    </div>
  );
}

function ProcessRowView(props: ProcessRowProps) {
  const { row, active, collapsed, anchor } = props;
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
      className={`prow${props.showPorts ? ' prow-ports' : ''}${active ? ' active' : ''}${zombie ? ' zombie' : ''}${node.escaped ? ' escaped' : ''}${row.context ? ' context' : ''}${props.membership?.leaked ? ' leaked' : ''}`}
      title={row.context ? 'Shown for context: an ancestor of a match, not a match itself' : undefined}
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
          <span
            className="marker marker-zombie"
            title={`Exited, but its parent (pid ${node.ppid}) has not collected its exit status`}
          >
            not reaped by {node.ppid} ({reaperName(node, parent, anchor)})
          </span>
        ) : null}
        {node.escaped ? (
          <span
            className="marker marker-escaped"
            title={`Left its run's ${node.escapedInto === 'group' ? 'process group (setpgid)' : 'session (setsid)'}; still a member by identity`}
          >
            ⇱ escaped · {escapeKind(node, anchor ?? parent)}
          </span>
        ) : null}
        {props.membership ? (
          <span
            className={`marker ${props.membership.leaked ? 'marker-leaked' : 'marker-member'}`}
            title={props.membership.title}
            data-testid={props.membership.leaked ? 'leaked-mark' : 'member-mark'}
          >
            {props.membership.leaked ? '⚠ ' : ''}
            {props.membership.label}
          </span>
        ) : null}
        {props.flags && props.flags.length > 0 ? <FlagBadges flags={props.flags} /> : null}
        <RowSpark source={props.historySource ?? 'run'} rowKey={zombie ? null : row.key} />
      </div>
      <div className="cell num col-pid">{node.pid}</div>
      <div className="cell col-state">
        <StateBadge state={node.state} />
      </div>
      <div className="cell num col-cpu">
        <span className="cell-value">
          {zombie ? '–' : node.cpuPercent === undefined ? '—' : formatPercent(node.cpuPercent)}
        </span>
      </div>
      <div className="cell num col-mem">
        <span className="cell-value">{zombie ? '–' : formatBytes(node.rssBytes)}</span>
      </div>
      <AgeCell startedAtMs={node.startedAtMs} />
      {props.showPorts ? <PortsCell node={node} /> : null}
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

export type SortKey = 'pid' | 'cpu' | 'memory' | 'age' | 'ports';
export interface SortOrder {
  key: SortKey;
  direction: 'ascending' | 'descending';
}

interface ProcessHeaderProps {
  /** Absent in run trees (small, always in tree order); the system view sorts by these columns. */
  sort?: SortOrder | null;
  onSort?(key: SortKey): void;
  /** The system view's Ports column (its full port map is read only while this shows). */
  showPorts?: boolean;
}

function HeaderCell({
  label,
  sortKey,
  className,
  props,
}: {
  label: string;
  sortKey: SortKey;
  className: string;
  props: ProcessHeaderProps;
}) {
  const { sort, onSort } = props;
  if (!onSort) return <div className={`cell ${className}`}>{label}</div>;
  const current = sort?.key === sortKey ? sort.direction : 'none';
  const arrow = current === 'ascending' ? ' ▲' : current === 'descending' ? ' ▼' : '';
  const said = current === 'none' ? '' : `, sorted ${current}`;
  // No columnheader/aria-sort: the rows below are a role=tree, which has no header row. The sort
  // state is in the button's name and pressed state instead, and data-sort for the styles.
  return (
    <div className={`cell ${className}`} data-sort={current}>
      <button
        type="button"
        className="sort"
        onClick={() => onSort(sortKey)}
        title={`Sort by ${label.toLowerCase()}`}
        aria-pressed={current !== 'none'}
        aria-label={`Sort by ${label}${said}`}
      >
        {label}
        {arrow}
      </button>
    </div>
  );
}

export function ProcessHeader(props: ProcessHeaderProps = {}) {
  return (
    <div className={`prow prow-header${props.showPorts ? ' prow-ports' : ''}`}>
      <div className="cell cell-name">Process</div>
      <HeaderCell label="PID" sortKey="pid" className="num col-pid" props={props} />
      <div className="cell col-state">State</div>
      <HeaderCell label="CPU %" sortKey="cpu" className="num col-cpu" props={props} />
      <HeaderCell label="Memory" sortKey="memory" className="num col-mem" props={props} />
      <HeaderCell label="Age" sortKey="age" className="num col-age" props={props} />
      {props.showPorts ? <HeaderCell label="Ports" sortKey="ports" className="col-ports" props={props} /> : null}
      <div className="cell cell-actions" />
    </div>
  );
}
