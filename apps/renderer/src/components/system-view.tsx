/**
 * The whole machine's process tree, virtualised so 5,000 rows stay smooth. The host polls the
 * system table only while this view is mounted (requestWatchSystem true on mount, false on unmount).
 */

import { useVirtualizer } from '@tanstack/react-virtual';
import type { Snapshot } from '@treewarden/protocol';
import { memo, useCallback, useDeferredValue, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { requestWatchSystem } from '../actions/actions';
import { useCollapsed } from '../hooks/use-collapsed';
import { handleListKey } from '../hooks/use-list-keys';
import { type MembershipMark, membershipMarks } from '../model/membership-marks';
import { filterSystemRows, type SystemFilter, sortSystemRows, type TreeRow } from '../model/tree';
import { useAppStore } from '../store/store';
import { FlagSettingsButton } from './flag-settings';
import { killRequestOf, ProcessHeader, ProcessRow, type SortKey, type SortOrder } from './process-row';
import { rowDomId } from './process-tree';
import { SystemInspector } from './system-inspector';

export const SYSTEM_ROW_HEIGHT = 26;
/**
 * Rows rendered beyond the viewport, so fast scrolling does not flash empty space. Every rendered
 * row's Age cell follows the 1 s clock and the row re-renders when its process changes, so each
 * extra row costs on every poll: 8 above and below (~200 px at 26 px a row) covers a wheel step.
 */
const OVERSCAN_ROWS = 8;

const FILTERS: Array<{ id: SystemFilter; label: string; tip: string }> = [
  { id: 'all', label: 'All', tip: 'Every process on the machine, as a tree' },
  { id: 'mine', label: 'Mine', tip: "Processes of the user the host runs as (its runs' uid)" },
  { id: 'zombies', label: 'Zombies', tip: 'Exited processes whose parent has not reaped them (state Z)' },
  {
    id: 'escaped',
    label: 'Escaped',
    tip: 'Members of a run that left its process group or session (setsid / setpgid)',
  },
  {
    id: 'flagged',
    label: 'Flagged',
    tip: 'Processes that spin a core for minutes or whose memory keeps growing (see Thresholds; nothing is ended)',
  },
];

const NO_FLAGS: readonly never[] = [];

/** One function for the virtualizer's lifetime: a new one per render would be a new option. */
function rowHeight(): number {
  return SYSTEM_ROW_HEIGHT;
}

/** Clicking a column header cycles: largest first, smallest first, back to the tree. */
function nextSort(current: SortOrder | null, key: SortKey): SortOrder | null {
  const first = key === 'pid' || key === 'ports' ? 'ascending' : 'descending';
  if (current?.key !== key) return { key, direction: first };
  if (current.direction === first) return { key, direction: first === 'ascending' ? 'descending' : 'ascending' };
  return null;
}

export function SystemView() {
  const system = useAppStore((state) => state.system);
  // The table is mutated in place; its version says when it changed (and re-renders this view).
  const version = useAppStore((state) => state.systemVersion);
  const activeKey = useAppStore((state) => state.selectedProcessKey);
  const selectProcess = useAppStore((state) => state.selectProcess);
  const askKill = useAppStore((state) => state.askKill);
  const pending = useAppStore((state) => state.pending);
  const flags = useAppStore((state) => state.systemFlags);
  const snapshot = useAppStore((state) => state.snapshot);
  // Leaked processes and run/lease/session members, marked on their rows. A snapshot comes every
  // poll; a mark that reads the same keeps its object, so its (memoised) row is not re-rendered.
  const lastMarks = useRef<ReadonlyMap<string, MembershipMark>>(new Map());
  const marks = useMemo(() => {
    const next = keepSameMarks(lastMarks.current, membershipMarks(snapshot));
    lastMarks.current = next;
    return next;
  }, [snapshot]);
  const [text, setText] = useState('');
  const [filter, setFilter] = useState<SystemFilter>('all');
  const [collapsed, toggle] = useCollapsed();
  const [inspectKey, setInspectKey] = useState<string | null>(null);
  const [sort, setSort] = useState<SortOrder | null>(null);
  const deferredText = useDeferredValue(text);
  const scroller = useRef<HTMLDivElement>(null);
  // Where focus was when the inspector opened: closing it returns there, never to <body>.
  const inspectorOrigin = useRef<HTMLElement | null>(null);
  const openInspector = useCallback((key: string) => {
    const focused = document.activeElement;
    if (focused instanceof HTMLElement && focused !== document.body) inspectorOrigin.current = focused;
    setInspectKey(key);
  }, []);
  const closeInspector = useCallback(() => {
    setInspectKey(null);
    (inspectorOrigin.current ?? scroller.current)?.focus();
  }, []);
  // A click (or double-click) on a row selects it and opens its facts, like Enter does.
  const activateRow = useCallback(
    (key: string) => {
      selectProcess(key);
      openInspector(key);
    },
    [selectProcess, openInspector],
  );

  useEffect(() => {
    void requestWatchSystem(true);
    return () => void requestWatchSystem(false);
  }, []);

  const shape = useAppStore((state) => state.systemShape);
  // "Mine" means the user the host runs as: the uid of its runs' processes when there are any,
  // else the most common non-root owner on the machine.
  const runUid = useAppStore((state) => firstRunUid(state.snapshot));
  // Only the Mine filter reads it: the guess scans the whole table, so it is not made for the others.
  const wantsUid = filter === 'mine';
  // biome-ignore lint/correctness/useExhaustiveDependencies: owners change only with the shape
  const myUid = useMemo(
    () => (wantsUid ? (runUid ?? guessUid(useAppStore.getState().system)) : null),
    [runUid, shape, wantsUid],
  );
  // Rebuild the row order only when the tree's shape changed (or a search/filter needs the new
  // values); CPU/memory-only polls re-read the visible nodes from the table and touch nothing else.
  // A sort by CPU, memory or age follows the values, so it re-sorts on every poll too. The plain
  // tree is the store's, spliced by each diff (model/system-tree.ts); searches and filters are
  // flattened from the table.
  const filtering = deferredText.trim() !== '' || filter !== 'all' || sort !== null;
  const rowsTrigger = filtering ? version : shape;
  const flagsTrigger = filter === 'flagged' ? flags : null;
  // biome-ignore lint/correctness/useExhaustiveDependencies: rowsTrigger stands for the table on purpose (see above)
  const rows = useMemo(() => {
    const { system: table, systemFlags, systemTree } = useAppStore.getState();
    if (!filtering) return systemTree.rows(collapsed);
    const query = { text: deferredText, filter, uid: myUid, flagged: systemFlags };
    if (sort) return sortSystemRows(table, query, sort);
    return filterSystemRows(table, query, collapsed);
  }, [rowsTrigger, flagsTrigger, deferredText, filter, myUid, collapsed, sort]);
  const zombies = useAppStore((state) => state.systemZombies);

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: rowHeight,
    overscan: OVERSCAN_ROWS,
    // Items keyed by index (the default): every row has the same fixed height, so a key-based size
    // cache buys nothing, and a key function that changes with the rows would make the virtualizer
    // re-measure all 20,000 items whenever a process comes or goes. React keys rows by identity below.
  });

  // The confirmation names the process as the table has it now (a kept row may hold an older node).
  const requestKill = useCallback(
    (row: TreeRow) => askKill(killRequestOf(useAppStore.getState().system.get(row.key) ?? row.node, 'tree', null)),
    [askKill],
  );
  const setActive = useCallback(
    (key: string) => {
      selectProcess(key);
      const index = rows.findIndex((row) => row.key === key);
      if (index >= 0) virtualizer.scrollToIndex(index, { align: 'auto' });
    },
    [rows, selectProcess, virtualizer],
  );

  // The inspector takes the list's lower part: the row it opened for stays in view (a click low in
  // the list had it hidden behind the inspector). Measured after the inspector's layout, before paint.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only an opening scrolls; later polls leave the user's scroll alone
  useLayoutEffect(() => {
    const list = scroller.current;
    const index = inspectKey === null ? -1 : rows.findIndex((row) => row.key === inspectKey);
    if (list === null || index < 0) return;
    const top = index * SYSTEM_ROW_HEIGHT;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (top + SYSTEM_ROW_HEIGHT > list.scrollTop + list.clientHeight)
      list.scrollTop = top + SYSTEM_ROW_HEIGHT - list.clientHeight;
  }, [inspectKey]);

  // Polls re-render this view often; scan the 5,000 rows only when they or the selection change.
  const ownsActive = useMemo(() => activeKey !== null && rows.some((row) => row.key === activeKey), [rows, activeKey]);
  const inspected = inspectKey ? (system.get(inspectKey) ?? null) : null;

  return (
    <div className="system-view">
      <SystemToolbar
        text={text}
        onText={setText}
        filter={filter}
        onFilter={setFilter}
        count={countText(
          rows.length,
          system.size,
          filtering && !sort && rows.some((row) => row.context),
          zombies,
          flags.size,
        )}
      />
      <ProcessHeader showPorts sort={sort} onSort={(key) => setSort((current) => nextSort(current, key))} />
      <div
        ref={scroller}
        className="system-scroll ptree"
        role="tree"
        aria-label="All processes"
        tabIndex={0}
        aria-activedescendant={ownsActive && activeKey ? rowDomId('system', activeKey) : undefined}
        onKeyDown={(event) => {
          if (event.key === 'Escape' && inspectKey !== null) {
            event.preventDefault();
            closeInspector();
            return;
          }
          handleListKey(event, {
            keys: rows.map((row) => row.key),
            activeKey: ownsActive ? activeKey : null,
            setActive,
            onEnter: openInspector,
            onKill: (key) => {
              const row = rows.find((candidate) => candidate.key === key);
              if (row) requestKill(row);
            },
            onCollapse: toggle,
          });
        }}
      >
        {system.size === 0 ? <div className="tree-empty">Reading the process table…</div> : null}
        {system.size > 0 && rows.length === 0 && filter === 'flagged' && deferredText.trim() === '' ? (
          <div className="tree-empty no-match" data-testid="system-empty">
            Nothing is flagged: no process has spun a core or kept growing its memory past the thresholds.{' '}
            <button type="button" className="btn btn-xs" onClick={() => setFilter('all')}>
              Show all
            </button>
          </div>
        ) : null}
        {system.size > 0 && rows.length === 0 && !(filter === 'flagged' && deferredText.trim() === '') ? (
          <div className="tree-empty no-match" data-testid="system-empty">
            No process matches{deferredText.trim() ? ` “${deferredText.trim()}”` : ''}
            {filter !== 'all' ? ` in ${FILTERS.find((item) => item.id === filter)?.label ?? filter}` : ''}.{' '}
            <button
              type="button"
              className="btn btn-xs"
              onClick={() => {
                setText('');
                setFilter('all');
              }}
            >
              Clear search and filter
            </button>
          </div>
        ) : null}
        <div className="virtual-space" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index];
            if (!row) return null;
            const node = system.get(row.key);
            return (
              <div key={row.key} className="virtual-row" style={{ transform: `translateY(${item.start}px)` }}>
                <ProcessRow
                  id={rowDomId('system', row.key)}
                  row={row}
                  node={node}
                  active={row.key === activeKey}
                  collapsed={collapsed.has(row.key)}
                  anchor={null}
                  onActivate={activateRow}
                  onToggle={toggle}
                  onKill={requestKill}
                  killPending={`kill:${row.key}` in pending}
                  historySource="system"
                  showPorts
                  flags={flags.get(row.key) ?? NO_FLAGS}
                  membership={marks.get(row.key)}
                />
              </div>
            );
          })}
        </div>
      </div>
      {inspected ? (
        <SystemInspector node={inspected} flags={flags.get(inspectKey ?? '') ?? NO_FLAGS} onClose={closeInspector} />
      ) : null}
    </div>
  );
}

/**
 * The search, filters and count above the rows. Memoised: the view re-renders on every poll, and
 * re-rendering the controlled search input re-set its attributes (a DOM change, so style work, each
 * second) though nothing in the toolbar had changed; now only a new count text touches it.
 */
const SystemToolbar = memo(function SystemToolbar({
  text,
  onText,
  filter,
  onFilter,
  count,
}: {
  text: string;
  onText(text: string): void;
  filter: SystemFilter;
  onFilter(filter: SystemFilter): void;
  count: string;
}) {
  return (
    <div className="toolbar">
      <input
        className="search"
        type="search"
        placeholder="Search pid, command or arguments"
        aria-label="Search processes"
        value={text}
        onChange={(event) => onText(event.target.value)}
      />
      <fieldset className="segmented" aria-label="Filter">
        {FILTERS.map((item) => (
          <button
            key={item.id}
            type="button"
            aria-pressed={filter === item.id}
            title={item.tip}
            className={filter === item.id ? 'on' : ''}
            onClick={() => onFilter(item.id)}
          >
            {item.label}
          </button>
        ))}
      </fieldset>
      <FlagSettingsButton />
      <span className="muted toolbar-count" data-testid="system-count">
        {count}
      </span>
    </div>
  );
});

/** The toolbar's count: shown of all, and what else the table holds. */
function countText(shown: number, total: number, dimmed: boolean, zombies: number, flagged: number): string {
  const counted = shown === total ? `${total} processes` : `${shown} of ${total} shown`;
  const ancestors = dimmed ? ' · dimmed rows are ancestors' : '';
  const zombieText = zombies > 0 ? ` · ${zombies} zombie${zombies === 1 ? '' : 's'}` : '';
  return `${counted}${ancestors}${zombieText}${flagged > 0 ? ` · ${flagged} flagged` : ''}`;
}

/** The new marks, with each one that reads as before replaced by the object it had before. */
function keepSameMarks(
  previous: ReadonlyMap<string, MembershipMark>,
  next: ReadonlyMap<string, MembershipMark>,
): ReadonlyMap<string, MembershipMark> {
  const kept = new Map<string, MembershipMark>();
  for (const [key, mark] of next) {
    const before = previous.get(key);
    const same = before && before.label === mark.label && before.title === mark.title && before.leaked === mark.leaked;
    kept.set(key, same ? before : mark);
  }
  return kept;
}

function firstRunUid(snapshot: Snapshot | null): number | null {
  for (const lease of snapshot?.leases ?? [])
    for (const run of lease.runs) if (run.processes[0]) return run.processes[0].uid;
  return null;
}

function guessUid(system: Map<string, { uid: number; ppid: number; pid: number }>): number | null {
  const counts = new Map<number, number>();
  for (const node of system.values()) if (node.uid !== 0) counts.set(node.uid, (counts.get(node.uid) ?? 0) + 1);
  let best: number | null = null;
  let bestCount = 0;
  for (const [uid, count] of counts)
    if (count > bestCount) {
      best = uid;
      bestCount = count;
    }
  return best ?? (system.size > 0 ? 0 : null);
}
