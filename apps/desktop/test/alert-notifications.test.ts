/**
 * The desktop app notifies of a pile-up inside a live agent session once per alert: the built main
 * against the recording stand-in for `electron`, with a real fake Claude holding three sets of the
 * same MCP server. The alert raises one notification; the snapshots that repeat it raise none; once
 * the pile changes (its oldest server ends, so the alert names other processes: a new id) it is told
 * again, and no notice ever repeats another.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mcpSetsOldestFirst, startPileAgent } from '../../../test-support/fake-piles.js';
import { isRunning, makeTempDir, pollUntil, removeTempDir, useProcessTracker } from '../../../test-support/index.js';
import { createElectronStandIn } from './support/electron-stand-in.js';
import { CLOSE_WAIT_MS, closeApp, loadMain, unloadMain } from './support/load-main.js';

/** New sessions are found by the observer's full scan (every 10 s), then judged in the same poll; load included. */
const NOTICE_WAIT_MS = 60_000;
const MCP_SETS = 3;

const tracker = useProcessTracker();

describe('alert notifications', () => {
  const savedHome = process.env.TREEWARDEN_HOME;
  let dir = '';
  beforeEach(() => {
    dir = makeTempDir('tw-alert-notify-');
  });
  afterEach(() => {
    process.env.TREEWARDEN_HOME = savedHome;
    unloadMain();
    removeTempDir(dir);
  });

  // The host sees every session on the machine: in a full parallel run other files' pile agents are
  // found by the same 10 s full scan, and more than ALERT_NOTICE_LINES fresh alerts in one snapshot
  // are told as one grouped notice ("and N more") that may not name this session. That is the
  // product's behaviour, not a race in it; a fresh attempt (new app, new pile) settles it.
  const retried = { timeout: 2 * NOTICE_WAIT_MS + CLOSE_WAIT_MS + 30_000, retry: 2 };
  it('shows one desktop notification per alert id of a live session', retried, async () => {
    process.env.TREEWARDEN_HOME = join(dir, 'state');
    const standIn = createElectronStandIn();
    const hosts = await loadMain(standIn);
    await pollUntil(() => standIn.windows[0], { description: 'the window' });
    // The host sees every session on this shared machine: only notices naming this agent's session
    // count (alone, or among other sessions' fresh alerts in one grouped notice).
    let mine = '';
    const notices = () =>
      standIn.calls.filter(
        (call) =>
          call.startsWith('notify Treewarden: ') &&
          mine !== '' &&
          call.includes(`duplicate MCP servers (`) &&
          call.includes(mine),
      );
    try {
      // The first snapshot is the notifier's baseline (alerts already there are the banner's, not news):
      // the agent starts after it. (The menu is set before any snapshot, so it is no sign of one.)
      await pollUntil(() => (hosts[0]?.snapshots ?? 0) > 0, {
        deadlineMs: NOTICE_WAIT_MS,
        description: 'the first snapshot',
      });
      const agent = await startPileAgent(tracker, { mcpSets: MCP_SETS });
      mine = `in claude-code session claude-code-${agent.rootPid}-`;
      const [first] = await pollUntil(() => (notices().length > 0 ? notices() : null), {
        deadlineMs: NOTICE_WAIT_MS,
        description: 'an alert notification',
      });
      // The observer may have caught the agent while it was still starting its sets: 2 or 4 processes.
      expect(first).toMatch(/duplicate MCP servers \(\d+ processes\) in claude-code session claude-code-\d+-/);
      // The oldest set's server ends: the alert now names other processes (a new id), told once more.
      // Oldest by start time: the first server to report may be the newest set's, which the alert keeps.
      const oldest = mcpSetsOldestFirst(agent)[0]?.[1] as number;
      process.kill(oldest, 'SIGKILL');
      await pollUntil(() => !isRunning(oldest), { description: 'the oldest server to end' });
      await pollUntil(() => (notices().length > 1 ? notices() : null), {
        deadlineMs: NOTICE_WAIT_MS,
        description: 'a notification for the changed alert',
      });
      // Several snapshots repeated the first alert before it changed: none of them told it again
      // (each notice names its alert's pids, so a repeat would be an identical line).
      expect(notices()[0]).toBe(first);
      expect(new Set(notices()).size).toBe(notices().length);
    } finally {
      await closeApp(standIn);
    }
  });
});
