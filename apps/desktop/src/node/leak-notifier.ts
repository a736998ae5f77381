/**
 * Decides when the desktop app tells the user about a leak: on every snapshot, the leaks that
 * were not in the previous one (the first snapshot is the baseline, shown by the banner). Plain
 * Node: the Electron `Notification` is only the `show` it is given.
 */
import { type LeakNotice, nextLeakNotice, type Snapshot } from '@treewarden/protocol';

export interface LeakNotifier {
  onSnapshot(snapshot: Snapshot): void;
}

export function createLeakNotifier(show: (notice: LeakNotice) => void): LeakNotifier {
  let seen: ReadonlySet<string> | null = null;
  return {
    onSnapshot(snapshot) {
      const step = nextLeakNotice(seen, snapshot.orphans);
      seen = step.seen;
      if (step.notice !== null) show(step.notice);
    },
  };
}
