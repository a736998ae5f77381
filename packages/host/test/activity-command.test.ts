/** getActivity and getHistory through the real host: a run's end comes back from the ledger after a reload. */
import type { ActivityEntry, HistoryEntry, HostEvent } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { pollUntil, useProcessTracker } from '../../../test-support/index.js';
import { EVENT_WAIT_MS, expectOk, SLOW_TEST_MS, useTestHost } from './helpers.js';

describe('activity from the ledger', () => {
  useProcessTracker();
  const startHost = useTestHost();

  it(
    'answers the recent endings newest first, with the cwd the run asked for in its history',
    async () => {
      const { host, events, stateDir } = startHost();
      const started = expectOk<{ runId: string }>(
        await host.handle({
          type: 'startRun',
          command: process.execPath,
          args: ['-e', 'process.exit(3)'],
          cwd: stateDir,
          timeoutSeconds: 30,
        }),
      );
      await pollUntil(
        () => events.some((event: HostEvent) => event.type === 'runEnded' && event.runId === started.runId),
        { deadlineMs: EVENT_WAIT_MS, description: 'runEnded event' },
      );
      const activity = expectOk<{ entries: ActivityEntry[] }>(await host.handle({ type: 'getActivity', limit: 5 }));
      const ending = activity.entries.find((entry) => entry.kind === 'run_end' && entry.runId === started.runId);
      expect(ending?.ok).toBe(false);
      expect(ending?.classification).toBe('error');
      expect(ending?.title).toContain('(exit 3)');
      const history = expectOk<{ entries: HistoryEntry[] }>(await host.handle({ type: 'getHistory' }));
      expect(history.entries.find((entry) => entry.runId === started.runId)?.cwd).toBe(stateDir);
      const refused = await host.handle({ type: 'getActivity', limit: 0 } as never);
      expect(refused.ok).toBe(false);
    },
    SLOW_TEST_MS,
  );
});
