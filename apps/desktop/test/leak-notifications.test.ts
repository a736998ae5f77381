/**
 * The desktop app notifies when a leak is found: the built main against the recording stand-in for
 * `electron`, with a real fake-Claude session. Leaks already there at start are the baseline (the
 * banner shows them); the session's members that outlive its killed root raise one notification.
 * On macOS the app keeps watching with its window closed: the notification still comes, and a
 * click on it opens the window again.
 */
import { join } from 'node:path';
import { readSessions } from '@treewarden/engine';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAgent } from '../../../test-support/fake-agents.js';
import { isRunning, makeTempDir, pollUntil, removeTempDir, useProcessTracker } from '../../../test-support/index.js';
import { createElectronStandIn, recordedEvent } from './support/electron-stand-in.js';
import { CLOSE_WAIT_MS, closeApp, loadMain, quitApp, unloadMain } from './support/load-main.js';

/** New sessions are found by the observer's full scan (every 10 s), then a leak within a poll; load included. */
const NOTICE_WAIT_MS = 45_000;

const tracker = useProcessTracker();

/**
 * Kill the root only once the app remembered the session (new sessions are found by its full scan,
 * every 10 s). This test is about the notification for a remembered session's survivors; a root
 * killed before any scan saw it leaves a tree only markers can tie to Claude, a different path,
 * and this test timed out once that way in a full run beside busy loops.
 */
async function waitUntilRemembered(stateDir: string, rootPid: number): Promise<void> {
  await pollUntil(() => readSessions(stateDir).sessions.some((session) => session.root.pid === rootPid), {
    deadlineMs: NOTICE_WAIT_MS,
    description: `the app to remember the session of ${rootPid}`,
  });
}

describe('leak notifications', () => {
  const savedHome = process.env.TREEWARDEN_HOME;
  const savedPlatform = Object.getOwnPropertyDescriptor(process, 'platform');
  let dir = '';
  beforeEach(() => {
    dir = makeTempDir('tw-notify-');
  });
  afterEach(() => {
    if (savedPlatform !== undefined) Object.defineProperty(process, 'platform', savedPlatform);
    process.env.TREEWARDEN_HOME = savedHome;
    unloadMain();
    removeTempDir(dir);
  });

  it(
    'shows one desktop notification when an agent session leaves members behind',
    async () => {
      process.env.TREEWARDEN_HOME = join(dir, 'state');
      const standIn = createElectronStandIn();
      await loadMain(standIn);
      const window = await pollUntil(() => standIn.windows[0], { description: 'the window' });
      const notices = () => standIn.calls.filter((call) => call.startsWith('notify '));
      try {
        // The first snapshot (it sets the menu's counts) is the baseline: the leak must come after it.
        await pollUntil(() => standIn.calls.includes('setApplicationMenu'), { description: 'the first snapshot' });
        const agent = await startFakeAgent(tracker, 'claude');
        expect(notices()).toEqual([]);
        await waitUntilRemembered(join(dir, 'state'), agent.rootPid);
        process.kill(agent.rootPid, 'SIGKILL');
        await pollUntil(() => !isRunning(agent.rootPid), { description: 'the fake Claude root to die' });
        const [notice] = await pollUntil(() => (notices().length > 0 ? notices() : null), {
          deadlineMs: NOTICE_WAIT_MS,
          description: 'a leak notification',
        });
        expect(notice).toMatch(
          /^notify Treewarden: \d+ leaked process(es)? found: \d+ from claude-code session claude-code-/,
        );
        expect(window.title).toMatch(/leaked/);
      } finally {
        await closeApp(standIn);
      }
    },
    2 * NOTICE_WAIT_MS + CLOSE_WAIT_MS + 30_000,
  );

  it(
    'on macOS, notifies with the window closed; a click opens the window again, but not while quitting',
    async () => {
      process.env.TREEWARDEN_HOME = join(dir, 'state');
      Object.defineProperty(process, 'platform', { value: 'darwin' });
      const standIn = createElectronStandIn({ holdReady: true });
      await loadMain(standIn);
      // The main read its platform; the engine (started once ready) runs on this machine's.
      if (savedPlatform !== undefined) Object.defineProperty(process, 'platform', savedPlatform);
      standIn.ready();
      const first = await pollUntil(() => standIn.windows[0], { description: 'the window' });
      try {
        await pollUntil(() => standIn.calls.includes('setApplicationMenu'), { description: 'the first snapshot' });
        first.close();
        expect(standIn.calls.filter((call) => call.startsWith('exit'))).toEqual([]);
        const agent = await startFakeAgent(tracker, 'claude');
        await waitUntilRemembered(join(dir, 'state'), agent.rootPid);
        process.kill(agent.rootPid, 'SIGKILL');
        await pollUntil(() => !isRunning(agent.rootPid), { description: 'the fake Claude root to die' });
        const [notification] = await pollUntil(
          () => (standIn.notifications.length > 0 ? standIn.notifications : null),
          { deadlineMs: NOTICE_WAIT_MS, description: 'a leak notification with the window closed' },
        );
        expect(standIn.openWindows()).toHaveLength(0);
        notification?.emit('click');
        expect(standIn.openWindows()).toHaveLength(1);
        expect(standIn.openWindows()[0]).not.toBe(first);
        // A click while quitting (the runs are being ended) opens nothing onto the closing host.
        standIn.openWindows()[0]?.close();
        standIn.app.emit('before-quit', recordedEvent());
        notification?.emit('click');
        expect(standIn.openWindows()).toHaveLength(0);
      } finally {
        await quitApp(standIn);
      }
    },
    2 * NOTICE_WAIT_MS + CLOSE_WAIT_MS + 30_000,
  );
});
