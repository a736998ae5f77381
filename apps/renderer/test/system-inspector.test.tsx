import { act, fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { SystemView } from '../src/components/system-view';
import { useAppStore } from '../src/store/store';
import { installFakeBridge, makeProcess, okReply, resetStoreEachTest, withViewportHeight } from './fixtures';

resetStoreEachTest();

withViewportHeight(600);

function showTable() {
  installFakeBridge(() => okReply({ enabled: true, processes: [] }));
  render(<SystemView />);
  const init = makeProcess({ pid: 1, ppid: 0, command: 'init', commandLine: 'init' });
  const worker = makeProcess({ pid: 11, ppid: 1, command: 'node', commandLine: 'node worker.mjs' });
  act(() => useAppStore.getState().replaceSystem([init, worker]));
  const row = document.querySelector('[role="treeitem"][data-pid="11"]') as HTMLElement;
  const tree = screen.getByRole('tree', { name: 'All processes' });
  return { row, tree };
}

describe('the process inspector', () => {
  it('opens on a click, closes on Escape, and Close returns focus where it came from', () => {
    const { row, tree } = showTable();
    expect(screen.queryByRole('region', { name: 'Process 11' })).toBeNull();
    tree.focus();
    fireEvent.mouseDown(row);
    fireEvent.click(row);
    expect(screen.getByRole('region', { name: 'Process 11' })).toBeTruthy();
    fireEvent.keyDown(tree, { key: 'Escape' });
    expect(screen.queryByRole('region', { name: 'Process 11' })).toBeNull();
    expect(document.activeElement).toBe(tree);

    fireEvent.mouseDown(row);
    fireEvent.doubleClick(row);
    const inspector = screen.getByRole('region', { name: 'Process 11' });
    const close = screen.getByRole('button', { name: 'Close' });
    close.focus();
    fireEvent.keyDown(close, { key: 'Escape' });
    expect(screen.queryByRole('region', { name: 'Process 11' })).toBeNull();
    expect(inspector.isConnected).toBe(false);
    expect(document.activeElement).toBe(tree);

    fireEvent.mouseDown(row);
    fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(document.activeElement).toBe(tree);
    expect(document.activeElement).not.toBe(document.body);
  });
});
