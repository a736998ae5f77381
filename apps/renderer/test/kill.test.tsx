import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ActivityPanel } from '../src/components/activity';
import { KillConfirm } from '../src/components/kill-confirm';
import { useAppStore } from '../src/store/store';
import { installFakeBridge, makeKillReport, okReply, resetStoreEachTest } from './fixtures';

resetStoreEachTest();

function renderKillUi() {
  return render(
    <>
      <KillConfirm />
      <ActivityPanel />
    </>,
  );
}

/** Activity starts folded to one line; a person opens it to read the timeline. */
async function openActivity() {
  fireEvent.click(await screen.findByRole('button', { name: /Activity/, expanded: false }));
}

const seen = { pid: 100, startTime: '10000' };

/** Clicks the dialog's kill button once the list of what dies has been read (it waits until then). */
async function confirmKill(name: 'Kill tree' | 'Kill subtree') {
  const button = screen.getByRole('button', { name }) as HTMLButtonElement;
  await waitFor(() => expect(button.disabled).toBe(false));
  fireEvent.click(button);
}

describe('killing a tree', () => {
  it('names the identity the user saw and shows the kill timeline', async () => {
    const { sent } = installFakeBridge(() => okReply(makeKillReport()));
    renderKillUi();
    act(() =>
      useAppStore.getState().askKill({ target: seen, command: 'node worker.mjs', scope: 'tree', runId: 'run-1' }),
    );
    expect(screen.getByRole('dialog').textContent).toContain('10000');
    // Cancel, not the destructive button, has the focus: Enter alone never kills.
    expect(document.activeElement?.textContent).toBe('Cancel');
    await confirmKill('Kill tree');
    await openActivity();
    await waitFor(() => expect(screen.getByText(/^Tree of pid 100 .*: Killed 1 process$/)).toBeTruthy());
    expect(sent.filter((command) => command.type !== 'previewKill')).toEqual([{ type: 'killTree', target: seen }]);
    const timeline = document.querySelectorAll('.tl-action');
    expect([...timeline].map((entry) => entry.textContent)).toEqual(['observe', 'SIGTERM', 'SIGKILL', 'verify']);
  });

  it('shows a refused stale kill with the host message and says nothing was signalled', async () => {
    const message = 'identity became uncertain: pid 100 now started at 20000, you saw 10000';
    installFakeBridge(() =>
      okReply(
        makeKillReport({
          result: 'refused',
          killed: [],
          error: message,
          timeline: [{ atMs: 1, action: 'refused', detail: 'start time changed' }],
        }),
      ),
    );
    renderKillUi();
    act(() =>
      useAppStore.getState().askKill({ target: seen, command: 'node worker.mjs', scope: 'tree', runId: 'run-1' }),
    );
    await confirmKill('Kill tree');
    await openActivity();
    await waitFor(() => expect(screen.getByText(message)).toBeTruthy());
    expect(screen.getByText(/Nothing was signalled/)).toBeTruthy();
    expect(document.querySelector('.outcome-refused')).not.toBeNull();
  });

  it('shows the host error verbatim when the command itself is refused', async () => {
    installFakeBridge(() => ({
      kind: 'reply',
      id: 1,
      ok: false,
      error: 'stale identity: pid 100 is not the process you saw',
    }));
    renderKillUi();
    act(() =>
      useAppStore.getState().askKill({ target: seen, command: 'node worker.mjs', scope: 'subtree', runId: null }),
    );
    await confirmKill('Kill subtree');
    await openActivity();
    await waitFor(() => expect(screen.getByText('stale identity: pid 100 is not the process you saw')).toBeTruthy());
    expect(screen.getByText(/Subtree of pid 100.*refused/)).toBeTruthy();
  });

  it('sends nothing when the confirmation is cancelled', () => {
    const { sent } = installFakeBridge(() => okReply(makeKillReport()));
    renderKillUi();
    act(() => useAppStore.getState().askKill({ target: seen, command: 'node worker.mjs', scope: 'tree', runId: null }));
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(useAppStore.getState().confirmKill).toBeNull();
    // Only the read-only preview went out: nothing that signals.
    expect(sent.map((command) => command.type)).toEqual(['previewKill']);
  });

  it('lists what the kill ends before it is confirmed: count, identities, argv, escapees; keyboard reachable', async () => {
    const { sent } = installFakeBridge((command) =>
      command.type === 'previewKill'
        ? okReply({
            refused: null,
            processes: [
              {
                pid: 100,
                startTime: '10000',
                ppid: 1,
                commandLine: 'node worker.mjs',
                startedAtMs: 1_700_000_000_000,
                outsideTree: false,
              },
              {
                pid: 101,
                startTime: '10001',
                ppid: 100,
                commandLine: 'sleep 100',
                startedAtMs: 1_700_000_000_000,
                outsideTree: false,
              },
              {
                pid: 140,
                startTime: '10040',
                ppid: 1,
                commandLine: 'node daemon.mjs',
                startedAtMs: 1_700_000_000_000,
                outsideTree: true,
              },
            ],
          })
        : okReply(makeKillReport()),
    );
    renderKillUi();
    act(() =>
      useAppStore.getState().askKill({ target: seen, command: 'node worker.mjs', scope: 'tree', runId: 'run-1' }),
    );
    await waitFor(() => expect(screen.getByTestId('kill-preview-count').textContent).toContain('3 processes'));
    expect(screen.getByTestId('kill-preview-count').textContent).toContain('1 of them outside the tree');
    const list = screen.getByRole('list', { name: 'Processes this kill ends' });
    expect([...list.querySelectorAll('li')].map((item) => item.getAttribute('data-pid'))).toEqual([
      '100',
      '101',
      '140',
    ]);
    expect(list.textContent).toContain('node daemon.mjs');
    expect(list.querySelector('[data-pid="140"]')?.textContent).toContain('escaped · found by run cookie');
    expect(list.tabIndex).toBe(0);
    expect(sent[0]).toEqual({ type: 'previewKill', target: seen });
  });

  it('keeps Kill disabled until the list of what dies is read, so it cannot be clicked blind or jump away', async () => {
    let answer: (() => void) | null = null;
    const { sent } = installFakeBridge((command) =>
      command.type === 'previewKill'
        ? new Promise((resolve) => {
            answer = () => resolve(okReply({ refused: null, processes: [] }));
          })
        : okReply(makeKillReport()),
    );
    renderKillUi();
    act(() =>
      useAppStore.getState().askKill({ target: seen, command: 'node worker.mjs', scope: 'tree', runId: 'run-1' }),
    );
    const button = screen.getByRole('button', { name: 'Kill tree' }) as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    expect(button.title).toBe('Reading what this would end…');
    fireEvent.click(button);
    expect(sent.map((command) => command.type)).toEqual(['previewKill']);
    await waitFor(() => expect(answer).not.toBeNull());
    act(() => answer?.());
    await waitFor(() => expect(button.disabled).toBe(false));
  });
});
