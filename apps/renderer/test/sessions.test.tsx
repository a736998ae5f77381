/**
 * Agent sessions in the UI: the sidebar lists live leases and sessions first and folds ended ones
 * into "Ended"; a CLI lease is named by its first run's command and directory; the session view
 * shows roles and totals; an agent leak is in the banner with its evidence, and "Clean up" lists
 * what it will signal and sends exactly those identities only after the confirmation.
 */

import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { OrphanView } from '@treewarden/protocol';
import { nextLeakNotice } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { ActivityPanel } from '../src/components/activity';
import { CleanConfirm } from '../src/components/clean-confirm';
import { ConfirmAction } from '../src/components/confirm-action';
import { OrphanBanner } from '../src/components/orphan-banner';
import { SessionView as SessionDetail } from '../src/components/session-view';
import { Sidebar } from '../src/components/sidebar';
import { sessionRowsInTreeOrder } from '../src/model/session-tree';
import { leaseLabel, shortenPath } from '../src/model/side-labels';
import { useAppStore } from '../src/store/store';
import {
  installFakeBridge,
  makeLease,
  makeProcess,
  makeRun,
  makeSession,
  makeSnapshot,
  NOW,
  okReply,
  resetStoreEachTest,
} from './fixtures';

resetStoreEachTest();

const leakedMcp: OrphanView = {
  runId: null,
  leaseId: null,
  kind: 'agent',
  agent: 'claude-code',
  sessionId: 'claude-code-500-77',
  role: 'mcp-server',
  reasons: ['claude-code root 500 (start 77) is gone', 'remembered as mcp-server of session claude-code-500-77'],
  process: makeProcess({ pid: 501, startTime: '78', commandLine: 'node mcp.js' }),
};

const markerOnly: OrphanView = {
  ...leakedMcp,
  sessionId: 'claude-code-marker-abc',
  markersOnly: true,
  reasons: ['marker CLAUDE_CODE_SESSION_ID=abc', 'reparented to pid 1'],
  process: makeProcess({ pid: 777, startTime: '90', commandLine: 'node stray.js' }),
};

describe('sidebar', () => {
  it('shows live leases and sessions first and folds ended ones into a collapsed Ended group', () => {
    const live = makeLease({ id: 'l1', name: 'alpha', holderState: 'alive', liveCount: 1 });
    const ended = makeLease({ id: 'l2', name: 'omega', holderState: 'released', liveCount: 0, leakedCount: 0 });
    const over = makeSession({ id: 'codex-9-9', agent: 'codex', state: 'ended', endedAt: new Date(NOW).toISOString() });
    act(() =>
      useAppStore.getState().applySnapshot(makeSnapshot({ leases: [live, ended], sessions: [makeSession(), over] })),
    );
    useAppStore.getState().selectLease('l1');
    render(<Sidebar />);
    expect(screen.getByRole('option', { name: /alpha/ })).toBeTruthy();
    expect(screen.getByRole('option', { name: /claude-code · ~\/proj/ }).textContent).toContain('live');
    expect(screen.queryByRole('option', { name: /omega/ })).toBeNull();
    expect(screen.queryByRole('option', { name: /codex/ })).toBeNull();
    const fold = screen.getByRole('button', { name: /Ended/ });
    expect(fold.getAttribute('aria-expanded')).toBe('false');
    expect(fold.textContent).toContain('2');
    fireEvent.click(fold);
    expect(screen.getByRole('option', { name: /omega/ }).textContent).toContain('released');
    expect(screen.getByRole('option', { name: /codex/ }).textContent).toContain('ended');
  });

  it('keeps an ended session that leaked among the live ones', () => {
    const leaking = makeSession({ state: 'ended', endedAt: new Date(NOW).toISOString(), leaked: [501] });
    act(() => useAppStore.getState().applySnapshot(makeSnapshot({ sessions: [leaking] })));
    render(<Sidebar />);
    expect(screen.getByRole('option', { name: /claude-code/ }).textContent).toContain('1 leaked');
    expect(screen.queryByRole('button', { name: /Ended/ })).toBeNull();
  });

  it('names a CLI lease by its first run command and directory, so runs can be told apart', () => {
    const cli = makeLease({
      name: 'cli',
      runs: [makeRun({ command: '/usr/bin/npm', args: ['test'], cwd: '/home/ana/proj' })],
    });
    expect(leaseLabel(cli)).toBe('npm test · ~/proj');
    expect(leaseLabel(makeLease({ name: 'nightly' }))).toBe('nightly');
    expect(shortenPath('/Users/bo/x')).toBe('~/x');
    expect(shortenPath('/homework/x')).toBe('/homework/x');
  });
});

describe('session view', () => {
  it('shows the tree with role badges in tree order, and CPU and memory totals', () => {
    act(() => useAppStore.getState().applySnapshot(makeSnapshot({ sessions: [makeSession()] })));
    render(<SessionDetail />);
    const rows = screen.getAllByTestId('session-proc');
    expect(rows.map((row) => row.getAttribute('data-role'))).toEqual(['root', 'mcp-server', 'dev-server']);
    expect(rows[2]?.textContent).toContain('dev server');
    expect(screen.getByTestId('session-totals').textContent).toBe('CPU 2.5% · memory 5.0 MiB');
  });

  it('says a chosen session left the list instead of showing another one in its place', () => {
    const other = makeSession({ id: 'codex-900-1', agent: 'codex', root: { pid: 900, startTime: '1' } });
    act(() => useAppStore.getState().applySnapshot(makeSnapshot({ sessions: [makeSession(), other] })));
    act(() => useAppStore.getState().selectSession('claude-code-500-77'));
    render(<SessionDetail />);
    expect(screen.getByTestId('session-view').textContent).toContain('claude-code');
    // Cleaned up: the session is gone from the next snapshot; the codex one is unrelated.
    act(() => useAppStore.getState().applySnapshot(makeSnapshot({ sessions: [other] })));
    expect(screen.getByTestId('session-gone').textContent).toContain('claude-code-500-77 is no longer listed');
    expect(screen.queryByTestId('session-view')).toBeNull();
  });

  it('orders a leaked subtree under its surviving parent', () => {
    const nodes = makeSession().processes;
    const shuffled = [nodes[2], nodes[0], nodes[1]].filter((node) => node !== undefined);
    expect(sessionRowsInTreeOrder(shuffled).map((row) => [row.node.pid, row.depth])).toEqual([
      [500, 0],
      [501, 1],
      [502, 2],
    ]);
  });
});

describe('agent leaks', () => {
  it('are in the banner with their evidence, and Clean up sends exactly what the confirmation listed', async () => {
    const { sent } = installFakeBridge(() =>
      okReply({ processes: [{ pid: 501, startTime: '78', sessionId: leakedMcp.sessionId, result: 'killed' }] }),
    );
    const session = makeSession({ state: 'ended', endedAt: new Date(NOW).toISOString(), leaked: [501] });
    act(() =>
      useAppStore
        .getState()
        .applySnapshot(makeSnapshot({ sessions: [session], orphans: [leakedMcp], counts: { live: 0, leaked: 1 } })),
    );
    useAppStore.getState().selectSession(session.id);
    render(
      <>
        <OrphanBanner />
        <SessionDetail />
        <CleanConfirm />
        <ConfirmAction />
        <ActivityPanel />
      </>,
    );
    const banner = screen.getByRole('alert');
    expect(banner.textContent).toContain('1 leaked process from 1 agent session still alive');
    expect(banner.textContent).toContain('claude-code MCP server');
    expect(banner.textContent).toContain('claude-code root 500 (start 77) is gone');
    // "Clean up all" covers agent leaks too (the banner counts them); the session's own button is narrower.
    expect(screen.getByRole('button', { name: 'Clean up all' })).toBeTruthy();
    expect(screen.getByTestId('session-leaks').textContent).toContain('remembered as mcp-server');
    fireEvent.click(screen.getByRole('button', { name: 'Clean up' }));
    const dialog = screen.getByRole('dialog', { name: 'Clean up 1 leaked agent process?' });
    expect(dialog.textContent).toContain('pid 501 MCP server of claude-code');
    expect(sent).toEqual([]);
    expect(document.activeElement?.textContent).toBe('Cancel');
    fireEvent.click(screen.getAllByRole('button', { name: 'Clean up' }).at(-1) as HTMLElement);
    await waitFor(() => expect(screen.getByTestId('activity-latest').textContent).toContain('ended 1 of 1'));
    expect(sent).toEqual([
      { type: 'cleanAgentLeaks', sessionId: leakedMcp.sessionId, targets: [{ pid: 501, startTime: '78' }] },
    ]);
  });

  it('ends trees found from markers alone only through their own, separate confirmation', async () => {
    const { sent } = installFakeBridge(() => okReply({ processes: [] }));
    act(() =>
      useAppStore
        .getState()
        .applySnapshot(makeSnapshot({ orphans: [leakedMcp, markerOnly], counts: { live: 0, leaked: 2 } })),
    );
    render(
      <>
        <OrphanBanner />
        <ConfirmAction />
      </>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Clean up 1 agent leak…' }));
    expect(screen.getByRole('dialog').textContent).not.toContain('pid 777');
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    fireEvent.click(screen.getByRole('button', { name: 'End 1 found from markers…' }));
    expect(screen.getByRole('dialog').textContent).toContain('Found from agent markers alone');
    fireEvent.click(screen.getByRole('button', { name: 'End them' }));
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toEqual({
      type: 'cleanAgentLeaks',
      targets: [{ pid: 777, startTime: '90' }],
      includeMarkersOnly: true,
    });
  });

  it('notifies only about leaks that are new since the last snapshot, never about those already on screen', () => {
    const first = nextLeakNotice(null, [leakedMcp]);
    expect(first.notice).toBeNull();
    const same = nextLeakNotice(first.seen, [leakedMcp]);
    expect(same.notice).toBeNull();
    const more = nextLeakNotice(same.seen, [leakedMcp, markerOnly]);
    expect(more.notice?.title).toBe('Treewarden: 1 leaked process found');
    expect(more.notice?.body).toBe('1 from claude-code session claude-code-marker-abc');
  });
});
