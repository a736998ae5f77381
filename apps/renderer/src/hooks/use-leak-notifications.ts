/**
 * Browser notifications for new leaks, only after the user turned them on ("Notify me") and the
 * browser granted it; never asked for on load. In Electron the main process notifies instead.
 */
import { nextLeakNotice } from '@treewarden/protocol';
import { useEffect } from 'react';
import { useAppStore } from '../store/store';

export function browserNotifications(): typeof Notification | null {
  return typeof Notification === 'function' ? Notification : null;
}

export function useLeakNotifications(): void {
  useEffect(() => {
    let seen: ReadonlySet<string> | null = null;
    return useAppStore.subscribe((state, before) => {
      if (state.snapshot === before.snapshot || state.snapshot === null) return;
      const step = nextLeakNotice(seen, state.snapshot.orphans);
      seen = step.seen;
      const api = browserNotifications();
      if (step.notice === null || !state.notifyLeaks || state.connection.transport === 'electron') return;
      if (api === null || api.permission !== 'granted') return;
      new api(step.notice.title, { body: step.notice.body, tag: 'treewarden-leak' });
    });
  }, []);
}
