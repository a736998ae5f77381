/** A run's live process tree (small enough to render without virtualisation). */
import type { ProcessNode } from '@treewarden/protocol';
import { useCallback, useMemo } from 'react';
import { useCollapsed } from '../hooks/use-collapsed';
import { handleListKey } from '../hooks/use-list-keys';
import { flattenTree, type TreeRow } from '../model/tree';
import { useAppStore } from '../store/store';
import { killRequestOf, ProcessHeader, ProcessRow } from './process-row';

interface ProcessTreeProps {
  runId: string;
  processes: ProcessNode[];
  rootPid: number | null;
  label: string;
}

export function rowDomId(scope: string, key: string): string {
  return `row-${scope}-${key.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
}

export function ProcessTree({ runId, processes, rootPid, label }: ProcessTreeProps) {
  const [collapsed, toggle] = useCollapsed();
  const rows = useMemo(() => flattenTree(processes, collapsed), [processes, collapsed]);
  const anchor = useMemo(() => processes.find((node) => node.pid === rootPid) ?? null, [processes, rootPid]);
  const activeKey = useAppStore((state) => state.selectedProcessKey);
  const selectProcess = useAppStore((state) => state.selectProcess);
  const selectRun = useAppStore((state) => state.selectRun);
  const askKill = useAppStore((state) => state.askKill);
  const pending = useAppStore((state) => state.pending);

  const requestKill = useCallback(
    (row: TreeRow) => askKill(killRequestOf(row.node, row.node.pid === rootPid ? 'tree' : 'subtree', runId)),
    [askKill, rootPid, runId],
  );

  const activate = useCallback(
    (key: string) => {
      selectProcess(key);
      selectRun(runId);
    },
    [selectProcess, selectRun, runId],
  );

  const ownsActive = rows.some((row) => row.key === activeKey);
  const byKey = (key: string) => rows.find((row) => row.key === key);

  if (processes.length === 0) return <div className="tree-empty">No live processes in this run.</div>;

  return (
    <div
      className="ptree"
      role="tree"
      aria-label={label}
      tabIndex={0}
      aria-activedescendant={ownsActive && activeKey ? rowDomId(runId, activeKey) : undefined}
      onFocus={(event) => {
        // Only a focus of the tree itself (Tab); a click on a row already chose its row.
        if (event.target === event.currentTarget && !ownsActive && rows[0]) selectProcess(rows[0].key);
      }}
      onKeyDown={(event) =>
        handleListKey(event, {
          keys: rows.map((row) => row.key),
          activeKey: ownsActive ? activeKey : null,
          setActive: selectProcess,
          onEnter: () => selectRun(runId),
          onKill: (key) => {
            const row = byKey(key);
            if (row) requestKill(row);
          },
          onCollapse: toggle,
        })
      }
    >
      <ProcessHeader />
      {rows.map((row) => (
        <ProcessRow
          key={row.key}
          id={rowDomId(runId, row.key)}
          row={row}
          active={row.key === activeKey}
          collapsed={collapsed.has(row.key)}
          anchor={anchor}
          onActivate={activate}
          onToggle={toggle}
          onKill={requestKill}
          killPending={`kill:${row.key}` in pending}
        />
      ))}
    </div>
  );
}
