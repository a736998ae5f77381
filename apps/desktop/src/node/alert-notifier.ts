/**
 * Decides when the desktop app tells the user about a pile-up inside a live agent session: once per
 * alert id, on the snapshot that first carries it (the first snapshot is the baseline, shown by the
 * banner). Plain Node: the Electron `Notification` is only the `show` it is given.
 */
import { type AlertNotice, nextAlertNotice, type Snapshot } from '@treewarden/protocol';

export interface AlertNotifier {
  onSnapshot(snapshot: Snapshot): void;
}

export function createAlertNotifier(show: (notice: AlertNotice) => void): AlertNotifier {
  let seen: ReadonlySet<string> | null = null;
  return {
    onSnapshot(snapshot) {
      const step = nextAlertNotice(seen, snapshot.sessions);
      seen = step.seen;
      if (step.notice !== null) show(step.notice);
    },
  };
}
