/**
 * Browser notifications of new leaks: permission is never asked on load, only when the user ticks
 * "Notify me"; once granted, a snapshot with a new leak shows one notification, and leaks already
 * on screen when the page opened are not news.
 */

import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { OrphanView } from '@treewarden/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NotifyToggle } from '../src/components/notify-toggle';
import { useLeakNotifications } from '../src/hooks/use-leak-notifications';
import { useAppStore } from '../src/store/store';
import { makeProcess, makeSnapshot, resetStoreEachTest } from './fixtures';

resetStoreEachTest();

function leak(pid: number): OrphanView {
  return {
    runId: null,
    leaseId: null,
    kind: 'agent',
    agent: 'codex',
    sessionId: 'codex-9-90',
    role: 'mcp-server',
    reasons: ['codex root 9 (start 90) is gone'],
    process: makeProcess({ pid, startTime: `${pid}0` }),
  };
}

/** A stand-in for the browser's Notification API that records what it was asked. */
function installNotifications(permission: NotificationPermission) {
  const shown: Array<{ title: string; body: string | undefined }> = [];
  const requestPermission = vi.fn(async () => {
    FakeNotification.permission = 'granted';
    return 'granted' as NotificationPermission;
  });
  class FakeNotification {
    static permission: NotificationPermission = permission;
    static requestPermission = requestPermission;
    constructor(title: string, options?: NotificationOptions) {
      shown.push({ title, body: options?.body });
    }
  }
  vi.stubGlobal('Notification', FakeNotification);
  return { shown, requestPermission };
}

function Notifier() {
  useLeakNotifications();
  return <NotifyToggle />;
}

afterEach(() => vi.unstubAllGlobals());

describe('browser leak notifications', () => {
  it('never asks on load; asks when ticked; then notifies once per new leak', async () => {
    const { shown, requestPermission } = installNotifications('default');
    act(() => useAppStore.getState().applySnapshot(makeSnapshot({ orphans: [leak(11)] })));
    render(<Notifier />);
    expect(requestPermission).not.toHaveBeenCalled();
    act(() => useAppStore.getState().applySnapshot(makeSnapshot({ orphans: [leak(11), leak(12)] })));
    expect(shown).toEqual([]); // not turned on yet
    fireEvent.click(screen.getByRole('checkbox', { name: /Notify me/ }));
    await waitFor(() => expect(useAppStore.getState().notifyLeaks).toBe(true));
    expect(requestPermission).toHaveBeenCalledTimes(1);
    act(() => useAppStore.getState().applySnapshot(makeSnapshot({ orphans: [leak(11), leak(12)] })));
    expect(shown).toEqual([]); // nothing new
    act(() => useAppStore.getState().applySnapshot(makeSnapshot({ orphans: [leak(11), leak(12), leak(13)] })));
    expect(shown).toEqual([{ title: 'Treewarden: 1 leaked process found', body: '1 from codex session codex-9-90' }]);
  });

  it('shows a refusal instead of asking again', () => {
    const { requestPermission } = installNotifications('denied');
    render(<NotifyToggle />);
    const box = screen.getByRole('checkbox', { name: /Notify me/ }) as HTMLInputElement;
    expect(box.disabled).toBe(true);
    expect(requestPermission).not.toHaveBeenCalled();
  });
});
