import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ActivityPanel } from '../src/components/activity';
import { CleanConfirm } from '../src/components/clean-confirm';
import { ConfirmAction } from '../src/components/confirm-action';
import { OrphanBanner } from '../src/components/orphan-banner';
import { useAppStore } from '../src/store/store';
import { installFakeBridge, makeKillReport, makeProcess, makeSnapshot, okReply, resetStoreEachTest } from './fixtures';

resetStoreEachTest();

const leaked = {
  runId: 'run-7',
  leaseId: 'lease-1',
  kind: 'over' as const,
  reasons: ['carries the cookie of ended run run-7'],
  process: makeProcess({ pid: 4242, command: 'run-forever', escaped: true }),
};

describe('OrphanBanner', () => {
  it('is absent while nothing leaked', () => {
    act(() => useAppStore.getState().applySnapshot(makeSnapshot()));
    render(<OrphanBanner />);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('cannot be missed when a tree leaked, and cleans up after one confirmation', async () => {
    const { sent } = installFakeBridge(() =>
      okReply({ kills: [makeKillReport({ target: { pid: 4242, startTime: '424200' } })] }),
    );
    act(() =>
      useAppStore.getState().applySnapshot(makeSnapshot({ orphans: [leaked], counts: { live: 1, leaked: 1 } })),
    );
    render(
      <>
        <OrphanBanner />
        <CleanConfirm />
        <ActivityPanel />
      </>,
    );
    const banner = screen.getByRole('alert');
    expect(banner.textContent).toContain('1 leaked process from 1 run still alive');
    expect(banner.textContent).toContain('pid 4242');
    expect(banner.textContent).toContain('carries the cookie of ended run run-7');
    fireEvent.click(screen.getByRole('button', { name: 'Clean up all' }));
    // Like a single kill, the clean-up asks first and names what it ends; nothing is sent yet.
    const dialog = screen.getByRole('dialog', { name: 'Confirm clean-up' });
    expect(dialog.textContent).toContain('pid 4242');
    expect(dialog.textContent).toContain('carries the cookie of ended run run-7');
    expect(sent).toEqual([]);
    expect(document.activeElement?.textContent).toBe('Cancel');
    fireEvent.click(screen.getByRole('button', { name: 'Clean up' }));
    await waitFor(() =>
      expect(screen.getByTestId('activity-latest').textContent).toContain('Cleaned 1 of 1 leaked tree'),
    );
    expect(sent).toEqual([{ type: 'cleanOrphans' }]);
    // The next snapshot no longer lists the orphan: the banner goes away.
    act(() => useAppStore.getState().applySnapshot(makeSnapshot()));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('sends nothing when the clean-up is cancelled', () => {
    const { sent } = installFakeBridge(() => okReply({ kills: [] }));
    act(() =>
      useAppStore.getState().applySnapshot(makeSnapshot({ orphans: [leaked], counts: { live: 1, leaked: 1 } })),
    );
    render(
      <>
        <OrphanBanner />
        <CleanConfirm />
      </>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Clean up all' }));
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(useAppStore.getState().confirmClean).toBeNull();
    expect(sent).toEqual([]);
  });

  it('ends unregistered trees only through a separate action that asks first and lists them', async () => {
    const { sent } = installFakeBridge(() => okReply({ kills: [] }));
    const stranger = {
      runId: 'run-elsewhere',
      leaseId: null,
      kind: 'unregistered' as const,
      reasons: ['run id recorded nowhere'],
      process: makeProcess({ pid: 5151, command: 'sleep', commandLine: 'sleep 999' }),
    };
    act(() =>
      useAppStore
        .getState()
        .applySnapshot(makeSnapshot({ orphans: [leaked, stranger], counts: { live: 1, leaked: 2 } })),
    );
    render(
      <>
        <OrphanBanner />
        <CleanConfirm />
        <ConfirmAction />
      </>,
    );
    expect(screen.getByTestId('orphan-count').textContent).toContain('2 leaked processes');
    // The default clean-up asks first and names only what this state dir recorded.
    fireEvent.click(screen.getByRole('button', { name: 'Clean up all' }));
    const cleanDialog = screen.getByRole('dialog');
    expect(screen.getByTestId('clean-targets').textContent).toContain(String(leaked.process.pid));
    expect(screen.getByTestId('clean-targets').textContent).not.toContain('5151');
    // ...and says what the banner counts that it leaves, so the numbers add up.
    expect(cleanDialog.textContent).toContain('End all 1 leaked process?');
    expect(screen.getByTestId('clean-left').textContent).toContain('1 unregistered (pid 5151)');
    fireEvent.click(screen.getByRole('button', { name: 'Clean up' }));
    await waitFor(() => expect(sent).toEqual([{ type: 'cleanOrphans' }]));
    fireEvent.click(screen.getByRole('button', { name: 'End 1 unregistered…' }));
    // Nothing is sent before the user confirmed what will end.
    expect(sent).toHaveLength(1);
    const dialog = screen.getByRole('dialog');
    expect(dialog.textContent).toContain('pid 5151 sleep 999 (run run-elsewhere)');
    expect(dialog.textContent).toContain('never recorded');
    expect(document.activeElement?.textContent).toBe('Cancel');
    fireEvent.click(screen.getByRole('button', { name: 'End them' }));
    await waitFor(() =>
      expect(sent).toEqual([{ type: 'cleanOrphans' }, { type: 'cleanOrphans', includeUnregistered: true }]),
    );
  });

  it('"Clean up all" lists and ends every leak the banner counts: runs and agent sessions alike', async () => {
    const { sent } = installFakeBridge((command) =>
      command.type === 'cleanAgentLeaks' ? okReply({ processes: [] }) : okReply({ kills: [] }),
    );
    const agentLeak = (pid: number, markersOnly: boolean) => ({
      runId: null,
      leaseId: null,
      kind: 'agent' as const,
      agent: 'claude-code' as const,
      sessionId: 'claude-code-900-1',
      role: 'mcp-server' as const,
      ...(markersOnly ? { markersOnly: true } : {}),
      reasons: ['its claude-code session ended (root pid 900 is gone)'],
      process: makeProcess({ pid, startTime: String(pid * 10), command: 'node', commandLine: `node mcp-${pid}.js` }),
    });
    const orphans = [leaked, agentLeak(6161, false), agentLeak(6262, false), agentLeak(6363, true)];
    act(() => useAppStore.getState().applySnapshot(makeSnapshot({ orphans, counts: { live: 1, leaked: 4 } })));
    render(
      <>
        <OrphanBanner />
        <CleanConfirm />
      </>,
    );
    expect(screen.getByTestId('orphan-count').textContent).toContain('4 leaked processes');
    fireEvent.click(screen.getByRole('button', { name: 'Clean up all' }));
    const dialog = screen.getByRole('dialog', { name: 'Confirm clean-up' });
    const targets = screen.getByTestId('clean-targets');
    // Listed: 3 ended + 1 left for its own confirmation = the banner's 4.
    expect(dialog.textContent).toContain('End all 3 leaked processes?');
    expect(targets.querySelectorAll('li')).toHaveLength(3);
    for (const pid of ['4242', '6161', '6262']) expect(targets.textContent).toContain(`pid ${pid}`);
    expect(targets.textContent).toContain('node mcp-6161.js');
    expect(screen.getByTestId('clean-left').textContent).toContain('1 found from agent markers alone (pid 6363)');
    // The list scrolls from the keyboard.
    expect(targets.getAttribute('tabindex')).toBe('0');
    expect(sent).toEqual([]);
    fireEvent.click(screen.getByRole('button', { name: 'Clean up' }));
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent).toContainEqual({ type: 'cleanOrphans' });
    expect(sent).toContainEqual({
      type: 'cleanAgentLeaks',
      targets: [
        { pid: 6161, startTime: '61610' },
        { pid: 6262, startTime: '62620' },
      ],
    });
  });

  it('"Clean up all" with only agent leaks is offered and sends only the agent clean-up', async () => {
    const { sent } = installFakeBridge(() => okReply({ processes: [] }));
    const agentOnly = {
      runId: null,
      leaseId: null,
      kind: 'agent' as const,
      agent: 'claude-code' as const,
      sessionId: 'claude-code-900-1',
      role: 'shell' as const,
      reasons: ['its session ended'],
      process: makeProcess({ pid: 7171, startTime: '71710', command: 'bash' }),
    };
    act(() =>
      useAppStore.getState().applySnapshot(makeSnapshot({ orphans: [agentOnly], counts: { live: 1, leaked: 1 } })),
    );
    render(
      <>
        <OrphanBanner />
        <CleanConfirm />
      </>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Clean up all' }));
    expect(screen.getByTestId('clean-targets').textContent).toContain('pid 7171');
    fireEvent.click(screen.getByRole('button', { name: 'Clean up' }));
    await waitFor(() =>
      expect(sent).toEqual([{ type: 'cleanAgentLeaks', targets: [{ pid: 7171, startTime: '71710' }] }]),
    );
  });
});
