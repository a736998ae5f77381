/** Activity: one line until opened, newest first, restored once from the ledger after a reload. */
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { ActivityEntry } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { loadActivity } from '../src/actions/actions';
import { ActivityPanel } from '../src/components/activity';
import { useAppStore } from '../src/store/store';
import { installFakeBridge, makeSnapshot, NOW, okReply, resetStoreEachTest } from './fixtures';

resetStoreEachTest();

const ledger: ActivityEntry[] = [
  {
    atMs: NOW - 1000,
    kind: 'run_end',
    ok: false,
    title: 'run-a ended: missing_binary (exit 127)',
    message: 'sleep 200 was not found (ENOENT); check the path or PATH',
    classification: 'missing_binary',
    runId: 'run-a',
  },
  {
    atMs: NOW - 5000,
    kind: 'kill',
    ok: true,
    title: 'Kill of pid 7 (orphan_clean): killed, 1 process ended',
    message: null,
    classification: null,
    runId: null,
  },
];

describe('Activity', () => {
  it('restores the ledger once, shows the newest on one line, and opens to the list', async () => {
    const { sent } = installFakeBridge((command) => okReply(command.type === 'getActivity' ? { entries: ledger } : {}));
    render(<ActivityPanel />);
    act(() => useAppStore.getState().setConnection({ status: 'open' }));
    await waitFor(() => expect(screen.getByTestId('activity-latest').textContent).toContain('run-a ended'));
    // The error is where the user looks, even folded.
    expect(screen.getByTestId('activity-latest').textContent).toContain('was not found (ENOENT)');
    expect(sent).toEqual([{ type: 'getActivity' }]);
    await act(() => loadActivity()); // a reconnect asks again: nothing is doubled
    expect(useAppStore.getState().outcomes).toHaveLength(2);
    // A live outcome is newer than anything restored, so it leads.
    act(() =>
      useAppStore.getState().pushOutcome({
        kind: 'start',
        ok: true,
        title: 'Started node as run-b',
        message: null,
        classification: null,
        reports: [],
        runId: 'run-b',
      }),
    );
    expect(screen.getByTestId('activity-latest').textContent).toContain('Started node as run-b');
    fireEvent.click(screen.getByRole('button', { name: /Activity/, expanded: false }));
    const items = document.querySelectorAll('.outcome');
    expect([...items].map((item) => item.getAttribute('data-kind'))).toEqual(['start', 'runEnded', 'kill']);
    expect(document.querySelectorAll('.outcome-restored')).toHaveLength(2);
  });

  it('shows each time short, with the whole date, time and zone in its title', async () => {
    installFakeBridge((command) => okReply(command.type === 'getActivity' ? { entries: ledger } : {}));
    render(<ActivityPanel />);
    act(() => useAppStore.getState().setConnection({ status: 'open' }));
    await waitFor(() => expect(screen.getByTestId('activity-latest').textContent).toContain('run-a ended'));
    const time = screen.getByTestId('activity-latest').querySelector('.outcome-time time');
    expect(time?.textContent).toMatch(/^\d\d:\d\d:\d\d$/);
    expect(time?.getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC[+-]\d\d:\d\d$/);
    expect(time?.getAttribute('dateTime')).toBe(new Date(NOW - 1000).toISOString());
  });

  it('reads its entries as prose: code spans, local times, paths from ~, nothing raw', async () => {
    const home = '/home/ana';
    const entries: ActivityEntry[] = [
      {
        atMs: NOW - 1000,
        kind: 'run_end',
        ok: false,
        title: 'run `node /home/ana/work/app/server.js` ended at 2023-11-14T22:13:20.000Z',
        message: 'cwd /home/ana/work/app was removed; see `treewarden history`',
        classification: 'error',
        runId: 'run-a',
      },
    ];
    installFakeBridge((command) => okReply(command.type === 'getActivity' ? { entries } : {}));
    act(() => useAppStore.getState().applySnapshot(makeSnapshot({ homeDir: home })));
    render(<ActivityPanel />);
    act(() => useAppStore.getState().setConnection({ status: 'open' }));
    const latest = await screen.findByTestId('activity-latest');
    await waitFor(() => expect(latest.textContent).toContain('~/work/app/server.js'));
    for (const root of [
      latest,
      (() => {
        fireEvent.click(screen.getByRole('button', { name: /Activity/, expanded: false }));
        return document.querySelector('.outcome') as HTMLElement;
      })(),
    ]) {
      expect(root.textContent).not.toMatch(/`|\/home\/ana|T22:13:20/);
      expect([...root.querySelectorAll('code')].map((code) => code.textContent)).toEqual([
        'node ~/work/app/server.js',
        'treewarden history',
      ]);
      expect(
        root.querySelector('.outcome-time ~ * time, .activity-latest-text time, .outcome-title time'),
      ).not.toBeNull();
    }
    // The tooltip is the same sentence in plain text, from ~, without backticks.
    expect(document.querySelector('.outcome-title')?.getAttribute('title')).toMatch(
      /^run node ~\/work\/app\/server\.js ended at 2023-11-1[45] /,
    );
  });
});
