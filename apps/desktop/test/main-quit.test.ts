/**
 * Single instance and the ways out of the built main process, against the recording Electron
 * stand-in: a second launch brings the window back (restored, shown, focused); closing the last
 * window quits on Linux and Windows but not on macOS, where `activate` opens a window again; a
 * quit ends the host (and so the app's runs, with their lease) exactly once, gives the lock up
 * exactly once, and a second quit meanwhile changes nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { IPC_REQUEST_CHANNEL, type Reply } from '@treewarden/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, pollUntil, removeTempDir } from '../../../test-support/index.js';
import { createElectronStandIn, type ElectronStandIn, recordedEvent } from './support/electron-stand-in.js';
import { CLOSE_WAIT_MS, closeApp, loadMain, REPO_ROOT, unloadMain } from './support/load-main.js';

const RENDERER_URL = pathToFileURL(join(REPO_ROOT, 'apps/renderer/dist/index.html')).href;
/** A run's shell writing its pid, on a loaded machine. */
const RUN_START_WAIT_MS = 15_000;
const TEST_TIMEOUT_MS = CLOSE_WAIT_MS + RUN_START_WAIT_MS + 10_000;

/** Running = its /proc entry exists and is not a zombie. */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function count(calls: readonly string[], call: string): number {
  return calls.filter((entry) => entry === call).length;
}

describe('main process: single instance and quit', () => {
  const savedHome = process.env.TREEWARDEN_HOME;
  const savedPlatform = Object.getOwnPropertyDescriptor(process, 'platform');
  let dir = '';
  let standIn: ElectronStandIn | null = null;
  beforeEach(() => {
    dir = makeTempDir('tw-main-quit-');
    process.env.TREEWARDEN_HOME = dir;
  });
  afterEach(async () => {
    if (savedPlatform !== undefined) Object.defineProperty(process, 'platform', savedPlatform);
    // A test that failed half-way still ends its app (and the host's runs) here.
    if (standIn !== null && !standIn.calls.includes('exit 0')) {
      standIn.app.emit('before-quit', recordedEvent());
      await pollUntil(() => standIn?.calls.includes('exit 0'), { deadlineMs: CLOSE_WAIT_MS, description: 'exit 0' });
    }
    standIn = null;
    process.env.TREEWARDEN_HOME = savedHome;
    unloadMain();
    removeTempDir(dir);
  }, CLOSE_WAIT_MS + 5000);

  it(
    'a second launch restores a minimised window, shows a hidden one and focuses it',
    async () => {
      const app = createElectronStandIn();
      standIn = app;
      await loadMain(app);
      const window = await pollUntil(() => app.windows[0], { description: 'the window' });
      const id = window.webContents.id;
      window.emit('ready-to-show');
      window.minimize();
      window.hide();
      const from = app.calls.length;
      app.app.emit('second-instance', recordedEvent(), ['treewarden'], dir);
      expect(app.calls.slice(from)).toEqual([`restore ${id}`, `show ${id}`, `focus ${id}`]);
      expect(window.isMinimized()).toBe(false);
      expect(window.isVisible()).toBe(true);

      window.hide();
      const again = app.calls.length;
      app.app.emit('second-instance', recordedEvent(), ['treewarden'], dir);
      expect(app.calls.slice(again)).toEqual([`show ${id}`, `focus ${id}`]);
      expect(window.isVisible()).toBe(true);
      expect(app.windows).toHaveLength(1);
      await closeApp(app);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "a quit ends the app's run and gives the lock up exactly once; a second quit meanwhile changes nothing",
    async () => {
      const app = createElectronStandIn();
      standIn = app;
      const hosts = await loadMain(app);
      const window = await pollUntil(() => app.windows[0], { description: 'the window' });
      window.webContents.mainFrame.url = RENDERER_URL;
      const pidFile = join(dir, 'run.pid');
      const started = (await app.invoke(
        IPC_REQUEST_CHANNEL,
        { contents: window.webContents, frame: window.webContents.mainFrame },
        {
          kind: 'request',
          id: 1,
          command: {
            type: 'startRun',
            command: '/bin/sh',
            args: ['-c', `echo $$ > '${pidFile}'; exec sleep 300`],
            timeoutSeconds: 600,
          },
        },
      )) as Reply;
      expect(started).toMatchObject({ ok: true, id: 1 });
      const pid = await pollUntil(() => Number(readFileSync(pidFile, 'utf8').trim()), {
        deadlineMs: RUN_START_WAIT_MS,
        description: "the run's pid",
      });
      expect(isRunning(pid)).toBe(true);

      const first = recordedEvent();
      app.app.emit('before-quit', first);
      expect(first.prevented).toBe(true);
      expect(count(app.calls, 'releaseLock')).toBe(1);
      // The user quits again while the runs are being ended: no second close, no early exit.
      const second = recordedEvent();
      app.app.emit('before-quit', second);
      expect(second.prevented).toBe(true);
      window.close();
      await pollUntil(() => app.calls.includes('exit 0'), { deadlineMs: CLOSE_WAIT_MS, description: 'exit 0' });
      expect(hosts.map((host) => host.closes)).toEqual([1]);
      expect(count(app.calls, 'releaseLock')).toBe(1);
      expect(app.calls.filter((call) => call.startsWith('exit'))).toEqual(['exit 0']);
      // The host's close ended the run before the exit: the app's lease left nothing behind.
      expect(isRunning(pid)).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );

  it.each(['linux', 'win32'] as const)(
    'on %s, closing the last window quits',
    async (platform) => {
      Object.defineProperty(process, 'platform', { value: platform });
      const app = createElectronStandIn({ holdReady: true });
      standIn = app;
      const hosts = await loadMain(app);
      // The main read its platform; the engine (started once ready) runs on this machine's.
      if (savedPlatform !== undefined) Object.defineProperty(process, 'platform', savedPlatform);
      app.ready();
      const window = await pollUntil(() => app.windows[0], { description: 'the window' });
      window.close();
      await pollUntil(() => app.calls.includes('exit 0'), { deadlineMs: CLOSE_WAIT_MS, description: 'exit 0' });
      expect(hosts.map((host) => host.closes)).toEqual([1]);
      expect(count(app.calls, 'releaseLock')).toBe(1);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'on macOS, closing the last window keeps the app; activate opens a window again',
    async () => {
      Object.defineProperty(process, 'platform', { value: 'darwin' });
      const app = createElectronStandIn({ holdReady: true });
      standIn = app;
      const hosts = await loadMain(app);
      if (savedPlatform !== undefined) Object.defineProperty(process, 'platform', savedPlatform);
      app.ready();
      const first = await pollUntil(() => app.windows[0], { description: 'the window' });
      first.close();
      // Give the life cycle every chance to (wrongly) quit: a round of the event loop.
      await new Promise((resolve) => setImmediate(resolve));
      expect(app.calls.filter((call) => call === 'releaseLock' || call.startsWith('exit'))).toEqual([]);
      expect(hosts.map((host) => host.closes)).toEqual([0]);

      app.app.emit('activate', recordedEvent(), false);
      expect(app.openWindows()).toHaveLength(1);
      const second = app.openWindows()[0];
      expect(second).not.toBe(first);
      expect(second?.options.webPreferences?.sandbox).toBe(true);
      // The new window has the IPC handler again (the old one's was removed on close).
      expect(app.handledChannels()).toEqual(new Set([IPC_REQUEST_CHANNEL]));
      // An activate with a window open only brings it to the front.
      app.app.emit('activate', recordedEvent(), true);
      expect(app.windows).toHaveLength(2);
      expect(app.calls.at(-1)).toBe(`focus ${second?.webContents.id}`);

      app.app.emit('before-quit', recordedEvent());
      await pollUntil(() => app.calls.includes('exit 0'), { deadlineMs: CLOSE_WAIT_MS, description: 'exit 0' });
      expect(hosts.map((host) => host.closes)).toEqual([1]);
    },
    TEST_TIMEOUT_MS,
  );
});
