/**
 * The System view on the in-place table and the spliced tree: it shows what each diff says —
 * births under their parents, exits, a reparented process under its new parent, a collapsed
 * subtree kept collapsed across diffs, a search that sees new values, and the plain tree again
 * after the search, with every diff made while it was hidden. Kill asks about the process as
 * the table has it now.
 */
import { act, fireEvent, render, screen } from '@testing-library/react';
import type { ProcessNode } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { SystemView } from '../src/components/system-view';
import { identityKey } from '../src/model/identity';
import { useAppStore } from '../src/store/store';
import { installFakeBridge, makeProcess, okReply, resetStoreEachTest, withViewportHeight } from './fixtures';

resetStoreEachTest();

withViewportHeight(600);

function shownPids(): number[] {
  return [...document.querySelectorAll('[role="treeitem"]')].map((row) => Number(row.getAttribute('data-pid')));
}

function diff(upserts: ProcessNode[], removed: ProcessNode[] = []) {
  act(() =>
    useAppStore
      .getState()
      .applySystemDiff({ type: 'systemDiff', full: false, upserts, removed: removed.map(identityKey) }),
  );
}

describe('System view rows', () => {
  it('follows births, exits, moves, collapse and search over the in-place table', { timeout: 30_000 }, () => {
    installFakeBridge(() => okReply({ enabled: true, processes: [] }));
    render(<SystemView />);
    const init = makeProcess({ pid: 1, ppid: 0, command: 'init', commandLine: 'init' });
    const shell = makeProcess({ pid: 10, ppid: 1, command: 'bash', commandLine: 'bash' });
    const worker = makeProcess({ pid: 11, ppid: 10, command: 'node', commandLine: 'node worker.mjs' });
    const other = makeProcess({ pid: 20, ppid: 1, command: 'sshd', commandLine: 'sshd' });
    act(() => useAppStore.getState().replaceSystem([init, shell, worker, other]));
    expect(shownPids()).toEqual([1, 10, 11, 20]);

    const born = makeProcess({ pid: 12, ppid: 10, command: 'sleep', commandLine: 'sleep 100' });
    diff([born], [worker]);
    expect(shownPids()).toEqual([1, 10, 12, 20]);

    diff([{ ...born, ppid: 20 }]);
    expect(shownPids()).toEqual([1, 10, 20, 12]);

    fireEvent.click(screen.getAllByRole('button', { name: 'Collapse' })[1] as HTMLElement); // sshd
    expect(shownPids()).toEqual([1, 10, 20]);
    diff([makeProcess({ pid: 21, ppid: 20 }), makeProcess({ pid: 13, ppid: 10 })]);
    expect(shownPids()).toEqual([1, 10, 13, 20]);

    // A search flattens from the table: it sees a command line changed in place.
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search processes' }), { target: { value: 'vim' } });
    expect(screen.getByTestId('system-empty')).toBeTruthy();
    diff([{ ...shell, commandLine: 'vim notes.md' }]);
    expect(shownPids()).toEqual([1, 10]);
    // Diffs while the plain tree is hidden still reach it.
    diff([makeProcess({ pid: 30, ppid: 1 })], [makeProcess({ pid: 13, ppid: 10 })]);
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search processes' }), { target: { value: '' } });
    expect(shownPids()).toEqual([1, 10, 20, 30]);
    expect(screen.getByTestId('system-count').textContent).toContain('4 of 6 shown'); // 12 and 21 under collapsed sshd

    // Kill names the process as it is now, not as its row first saw it.
    diff([{ ...other, commandLine: 'sshd -D (restarted)' }]);
    const sshdRow = document.querySelector('[data-pid="20"]') as HTMLElement;
    fireEvent.click(sshdRow.querySelector('.btn-danger-ghost') as HTMLElement);
    expect(useAppStore.getState().confirmKill?.command).toBe('sshd -D (restarted)');
  });
});
