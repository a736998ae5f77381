/**
 * An ended session's leftover containers in its clean-up: the confirmation lists each container by
 * name, image and id before anything is sent; "Clean up" stops only the strongly attributed ones;
 * weak ones (bind mount, compose dir) only through "Clean up all, weak too", which says so first.
 * A live session's containers and an exited one are never offered.
 */
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { Command, OrphanView, SessionContainerRow } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { ActivityPanel } from '../src/components/activity';
import { CleanConfirm } from '../src/components/clean-confirm';
import { ConfirmAction } from '../src/components/confirm-action';
import { OrphanBanner } from '../src/components/orphan-banner';
import { SessionView as SessionDetail } from '../src/components/session-view';
import { useAppStore } from '../src/store/store';
import {
  installFakeBridge,
  makeProcess,
  makeSession,
  makeSnapshot,
  NOW,
  okReply,
  resetStoreEachTest,
} from './fixtures';

resetStoreEachTest();

function container(overrides: Partial<SessionContainerRow>): SessionContainerRow {
  return {
    id: 'a'.repeat(64),
    name: 'pg-main',
    image: 'postgres:16',
    state: 'running',
    started: new Date(NOW - 60_000).toISOString(),
    createdAtMs: NOW - 61_000,
    ports: [],
    strength: 'strong',
    evidence: [{ kind: 'creating-cli-member', detail: 'docker run -d (pid 612) of the session created it' }],
    ...overrides,
  };
}

const strong = container({});
const weak = container({
  id: 'b'.repeat(64),
  name: 'cache',
  image: 'redis:7',
  createdAtMs: NOW - 50_000,
  strength: 'weak',
  evidence: [{ kind: 'bind-mount', detail: 'bind-mounts the session directory /home/ana/proj' }],
});
const exited = container({ id: 'c'.repeat(64), name: 'done', state: 'exited' });

function stopReply(command: Command) {
  if (command.type === 'cleanAgentLeaks') return okReply({ processes: [] });
  const targets = command.type === 'stopSessionContainers' ? command.targets : [];
  return okReply({
    containers: targets.map((t) => ({
      id: t.id,
      name: 'x',
      sessionId: 'claude-code-500-77',
      result: 'stopped',
      detail: 'stopped through the engine API',
    })),
  });
}

describe('session clean-up with containers', () => {
  it('stops the strong leftovers on Clean up, the weak one only on its own ask, listing each first', async () => {
    const { sent } = installFakeBridge(stopReply);
    const session = makeSession({
      state: 'ended',
      endedAt: new Date(NOW).toISOString(),
      containers: [strong, weak, exited],
    });
    act(() => useAppStore.getState().applySnapshot(makeSnapshot({ sessions: [session] })));
    useAppStore.getState().selectSession(session.id);
    render(
      <>
        <SessionDetail />
        <ConfirmAction />
        <ActivityPanel />
      </>,
    );
    const listed = screen.getAllByTestId('leftover-container');
    expect(listed.map((row) => row.getAttribute('data-strength'))).toEqual(['strong', 'weak']);
    expect(screen.getByTestId('session-leaks').textContent).toContain('2 containers outlived the session');

    fireEvent.click(screen.getByRole('button', { name: 'Clean up' }));
    const dialog = screen.getByRole('dialog', { name: 'Clean up 1 leftover container?' });
    expect(dialog.textContent).toContain(`container pg-main (postgres:16) ${'a'.repeat(12)}, strong`);
    expect(dialog.textContent).not.toContain('cache');
    expect(sent).toEqual([]);
    fireEvent.click(screen.getAllByRole('button', { name: 'Clean up' }).at(-1) as HTMLElement);
    await waitFor(() => expect(screen.getByTestId('activity-latest').textContent).toContain('stopped 1 of 1'));
    expect(sent).toEqual([
      {
        type: 'stopSessionContainers',
        sessionId: session.id,
        targets: [{ id: strong.id, createdAtMs: strong.createdAtMs }],
      },
    ]);

    fireEvent.click(screen.getByRole('button', { name: 'Clean up all, weak too' }));
    const all = screen.getByRole('dialog', { name: 'Clean up 2 leftover containers?' });
    expect(all.textContent).toContain('weaker evidence');
    expect(all.textContent).toContain(`container cache (redis:7) ${'b'.repeat(12)}, weak`);
    fireEvent.click(screen.getAllByRole('button', { name: 'Clean up' }).at(-1) as HTMLElement);
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent[1]).toEqual({
      type: 'stopSessionContainers',
      sessionId: session.id,
      targets: [
        { id: strong.id, createdAtMs: strong.createdAtMs },
        { id: weak.id, createdAtMs: weak.createdAtMs },
      ],
      includeWeak: true,
    });
  });

  it('offers nothing for a live session or for containers that no longer run', () => {
    installFakeBridge(stopReply);
    const live = makeSession({ containers: [strong, weak] });
    act(() => useAppStore.getState().applySnapshot(makeSnapshot({ sessions: [live] })));
    useAppStore.getState().selectSession(live.id);
    const { unmount } = render(<SessionDetail />);
    expect(screen.queryByTestId('session-leaks')).toBeNull();
    unmount();
    const ended = makeSession({ state: 'ended', endedAt: new Date(NOW).toISOString(), containers: [exited] });
    act(() => useAppStore.getState().applySnapshot(makeSnapshot({ sessions: [ended] })));
    render(<SessionDetail />);
    expect(screen.queryByTestId('session-leaks')).toBeNull();
  });
});

describe('the banner’s Clean up all with containers', () => {
  it('lists and stops the ended sessions’ strong leftover containers with the leaks, never the weak ones', async () => {
    const { sent } = installFakeBridge(stopReply);
    const session = makeSession({
      state: 'ended',
      endedAt: new Date(NOW).toISOString(),
      leaked: [501],
      containers: [strong, weak, exited],
    });
    const leak: OrphanView = {
      runId: null,
      leaseId: null,
      kind: 'agent',
      agent: 'claude-code',
      sessionId: session.id,
      role: 'mcp-server',
      reasons: ['claude-code root 500 (start 77) is gone', 'remembered as mcp-server'],
      process: makeProcess({ pid: 501, startTime: '78', commandLine: 'node mcp.js' }),
    };
    act(() =>
      useAppStore
        .getState()
        .applySnapshot(makeSnapshot({ sessions: [session], orphans: [leak], counts: { live: 0, leaked: 1 } })),
    );
    render(
      <>
        <OrphanBanner />
        <CleanConfirm />
      </>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Clean up all' }));
    const dialog = screen.getByRole('dialog', { name: 'Confirm clean-up' });
    expect(dialog.textContent).toContain('End all 1 leaked process and stop 1 container?');
    expect(screen.getByTestId('clean-containers').textContent).toContain(
      `container pg-main (postgres:16) ${'a'.repeat(12)}, strong`,
    );
    expect(dialog.textContent).not.toContain('cache');
    expect(sent).toEqual([]);
    fireEvent.click(screen.getAllByRole('button', { name: 'Clean up' }).at(-1) as HTMLElement);
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent).toContainEqual({
      type: 'stopSessionContainers',
      targets: [{ id: strong.id, createdAtMs: strong.createdAtMs }],
    });
  });
});
