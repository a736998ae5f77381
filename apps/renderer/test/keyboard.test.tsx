import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ProcessTree } from '../src/components/process-tree';
import { Sidebar } from '../src/components/sidebar';
import { useAppStore } from '../src/store/store';
import { makeLease, makeProcess, makeSnapshot, resetStoreEachTest } from './fixtures';

resetStoreEachTest();

const processes = [
  makeProcess({ pid: 100, ppid: 1 }),
  makeProcess({ pid: 101, ppid: 100 }),
  makeProcess({ pid: 102, ppid: 101 }),
];

function selectedPid(): string | undefined {
  return (document.querySelector('[role="treeitem"][aria-selected="true"]') as HTMLElement | null)?.dataset.pid;
}

describe('keyboard navigation in a process tree', () => {
  it('moves with the arrow keys and selects the run with Enter', () => {
    render(<ProcessTree runId="run-1" processes={processes} rootPid={100} label="Processes of run-1" />);
    const tree = screen.getByRole('tree', { name: 'Processes of run-1' });
    fireEvent.focus(tree);
    expect(selectedPid()).toBe('100');
    fireEvent.keyDown(tree, { key: 'ArrowDown' });
    fireEvent.keyDown(tree, { key: 'ArrowDown' });
    expect(selectedPid()).toBe('102');
    fireEvent.keyDown(tree, { key: 'ArrowDown' });
    expect(selectedPid()).toBe('102');
    fireEvent.keyDown(tree, { key: 'ArrowUp' });
    expect(selectedPid()).toBe('101');
    expect(tree.getAttribute('aria-activedescendant')).toBe(document.querySelector('[data-pid="101"]')?.id);
    fireEvent.keyDown(tree, { key: 'Enter' });
    expect(useAppStore.getState().selectedRunId).toBe('run-1');
  });

  it('asks to kill the highlighted subtree with k, naming its identity', () => {
    render(<ProcessTree runId="run-1" processes={processes} rootPid={100} label="tree" />);
    const tree = screen.getByRole('tree');
    fireEvent.focus(tree);
    fireEvent.keyDown(tree, { key: 'ArrowDown' });
    fireEvent.keyDown(tree, { key: 'k' });
    expect(useAppStore.getState().confirmKill).toMatchObject({
      target: { pid: 101, startTime: '10100' },
      scope: 'subtree',
      runId: 'run-1',
    });
  });

  it('asks to kill the whole tree with Delete on the root', () => {
    render(<ProcessTree runId="run-1" processes={processes} rootPid={100} label="tree" />);
    const tree = screen.getByRole('tree');
    fireEvent.focus(tree);
    fireEvent.keyDown(tree, { key: 'Delete' });
    expect(useAppStore.getState().confirmKill).toMatchObject({ target: { pid: 100 }, scope: 'tree' });
  });

  it('collapses and expands with ArrowLeft and ArrowRight', () => {
    render(<ProcessTree runId="run-1" processes={processes} rootPid={100} label="tree" />);
    const tree = screen.getByRole('tree');
    fireEvent.focus(tree);
    fireEvent.keyDown(tree, { key: 'ArrowLeft' });
    expect(screen.getAllByRole('treeitem')).toHaveLength(1);
    fireEvent.keyDown(tree, { key: 'ArrowRight' });
    expect(screen.getAllByRole('treeitem')).toHaveLength(3);
  });
});

describe('keyboard navigation in the lease sidebar', () => {
  it('moves between leases with the arrow keys', () => {
    const leases = [
      makeLease({ id: 'a', name: 'alpha' }),
      makeLease({ id: 'b', name: 'beta', holderState: 'dead', leakedCount: 2 }),
    ];
    useAppStore.getState().applySnapshot(makeSnapshot({ leases }));
    // The first screen opens on the leaking lease; start the walk from the top.
    expect(useAppStore.getState().selectedLeaseId).toBe('b');
    useAppStore.getState().selectLease('a');
    render(<Sidebar />);
    const list = screen.getByRole('listbox', { name: 'Leases' });
    fireEvent.keyDown(list, { key: 'ArrowDown' });
    expect(useAppStore.getState().selectedLeaseId).toBe('b');
    expect(screen.getByRole('option', { name: /beta/ }).textContent).toContain('2 leaked');
    expect(screen.getByRole('option', { name: /beta/ }).textContent).toContain('dead');
  });
});
