/**
 * "Notify me": browser notifications when a leak is found. Permission is asked only when the user
 * ticks it (never on load); a refusal is shown, not asked again. Hidden in Electron, whose main
 * process notifies on its own.
 */
import { memo, useState } from 'react';
import { browserNotifications } from '../hooks/use-leak-notifications';
import { useAppStore } from '../store/store';

/**
 * Memoised: it takes no props, and the sidebar around it renders on every poll, while reading the
 * browser's notification permission costs a call into the browser each time (~1 ms an idle poll).
 */
export const NotifyToggle = memo(function NotifyToggle() {
  const electron = useAppStore((state) => state.connection.transport === 'electron');
  const on = useAppStore((state) => state.notifyLeaks);
  const setOn = useAppStore((state) => state.setNotifyLeaks);
  const api = browserNotifications();
  const [permission, setPermission] = useState(api?.permission ?? 'denied');
  if (electron) return null;
  const unavailable = api === null ? 'This browser has no notifications' : null;
  const blocked = permission === 'denied' && api !== null ? 'Notifications are blocked for this page' : null;
  const toggle = async (wanted: boolean) => {
    if (!wanted || api === null) return setOn(false);
    const answer = api.permission === 'default' ? await api.requestPermission() : api.permission;
    setPermission(answer);
    setOn(answer === 'granted');
  };
  return (
    <label className="notify-toggle" title={unavailable ?? blocked ?? 'Show a notification when a leak is found'}>
      <input
        type="checkbox"
        checked={on}
        disabled={unavailable !== null || blocked !== null}
        onChange={(event) => void toggle(event.target.checked)}
      />
      Notify me of new leaks
    </label>
  );
});
