/**
 * Browser notifications for new leaks and new pile-ups in live sessions (once per alert id), only
 * after the user turned them on ("Notify me") and the browser granted it; never asked for on load.
 * In Electron the main process notifies instead.
 */
import { nextAlertNotice, nextLeakNotice } from '@treewarden/protocol';
import { useEffect } from 'react';
import { useAppStore } from '../store/store';

export function browserNotifications(): typeof Notification | null {
  return typeof Notification === 'function' ? Notification : null;
}

export function useLeakNotifications(): void {
  useEffect(() => {
    let seenLeaks: ReadonlySet<string> | null = null;
    let seenAlerts: ReadonlySet<string> | null = null;
    return useAppStore.subscribe((state, before) => {
      if (state.snapshot === before.snapshot || state.snapshot === null) return;
      // Both steps run on every snapshot, shown or not: what was on screen while off is no news later.
      const leaks = nextLeakNotice(seenLeaks, state.snapshot.orphans);
      const alerts = nextAlertNotice(seenAlerts, state.snapshot.sessions);
      seenLeaks = leaks.seen;
      seenAlerts = alerts.seen;
      const api = browserNotifications();
      if (!state.notifyLeaks || state.connection.transport === 'electron') return;
      if (api === null || api.permission !== 'granted') return;
      if (leaks.notice !== null) new api(leaks.notice.title, { body: leaks.notice.body, tag: 'treewarden-leak' });
      if (alerts.notice !== null) new api(alerts.notice.title, { body: alerts.notice.body, tag: 'treewarden-alert' });
    });
  }, []);
}
