/**
 * The built main (dist/main.js, what Electron runs), in Node against a recording stand-in for
 * `electron` (support/electron-stand-in.ts): a start-up throw
 * (relative TREEWARDEN_HOME, a state dir that cannot be created) shows the error, gives the lock
 * up and exits 1; a normal start keeps the window title under the main's control, signals
 * `npm start` once the window is shown, and on close ends the host before exiting 0; its web
 * contents navigate nowhere but the renderer file and open no window, link or webview.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, pollUntil, removeTempDir } from '../../../test-support/index.js';
import { readyFileArg } from '../src/node/ready-signal.js';
import { createElectronStandIn, recordedEvent, windowOpenDetails } from './support/electron-stand-in.js';
import { CLOSE_WAIT_MS, closeApp, loadMain, REPO_ROOT, unloadMain } from './support/load-main.js';

describe('main process', () => {
  const savedHome = process.env.TREEWARDEN_HOME;
  const savedArgv = [...process.argv];
  let dir = '';
  beforeEach(() => {
    dir = makeTempDir('tw-main-');
  });
  afterEach(() => {
    process.env.TREEWARDEN_HOME = savedHome;
    process.argv = [...savedArgv];
    unloadMain();
    removeTempDir(dir);
  });

  it.each([
    ['a relative TREEWARDEN_HOME', () => 'state', /TREEWARDEN_HOME must be an absolute path, got "state"/],
    [
      'a state dir that cannot be created',
      () => {
        writeFileSync(join(dir, 'file'), '');
        return join(dir, 'file', 'state');
      },
      /ENOTDIR/,
    ],
  ])('%s: shows the error, releases the lock and exits 1', async (_name, home, message) => {
    process.env.TREEWARDEN_HOME = home();
    const standIn = createElectronStandIn();
    await loadMain(standIn);
    await pollUntil(() => standIn.calls.some((call) => call.startsWith('exit')), { description: 'the exit' });
    const shown = standIn.calls.filter((call) => call.startsWith('showErrorBox'));
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatch(/^showErrorBox Treewarden could not start: /);
    expect(shown[0]).toMatch(message);
    const tail = standIn.calls.slice(standIn.calls.indexOf('releaseLock'));
    expect(tail).toEqual(['releaseLock', shown[0], 'exit 1']);
    expect(standIn.windows).toHaveLength(0);
  });

  it('a second launch signals that it handed over and quits without a window', async () => {
    const readyFile = join(dir, 'ready');
    process.argv = [...savedArgv, readyFileArg(readyFile)];
    const standIn = createElectronStandIn({ gotLock: false });
    await loadMain(standIn);
    expect(standIn.calls).toEqual(['requestLock', 'quit']);
    // Nothing more comes, not even once ready: no window, no hardening, no host.
    await new Promise((resolve) => setImmediate(resolve));
    expect(standIn.calls).toEqual(['requestLock', 'quit']);
    expect(standIn.windows).toHaveLength(0);
    expect(readFileSync(readyFile, 'utf8')).toBe('handed-over\n');
  });

  it(
    "the window's web contents may navigate only to the renderer file and opens no window, link or webview",
    async () => {
      process.env.TREEWARDEN_HOME = dir;
      const standIn = createElectronStandIn();
      await loadMain(standIn);
      const window = await pollUntil(() => standIn.windows[0], { description: 'the window' });
      const contents = window.webContents;
      const renderer = pathToFileURL(join(REPO_ROOT, 'apps/renderer/dist/index.html')).href;
      const prevented = (name: string, url: string) => {
        const event = Object.assign(recordedEvent(), { url });
        contents.emit(name, event);
        return event.prevented;
      };
      for (const name of ['will-navigate', 'will-frame-navigate']) {
        expect(prevented(name, `${renderer}#/system`)).toBe(false);
        expect(prevented(name, `${renderer}.evil`)).toBe(true);
        expect(prevented(name, 'https://example.com/')).toBe(true);
      }
      expect(prevented('will-redirect', `${renderer}#/system`)).toBe(true);
      expect(prevented('will-attach-webview', 'https://example.com/')).toBe(true);
      expect(contents.windowOpenHandler?.(windowOpenDetails('https://example.com/docs'))).toEqual({ action: 'deny' });
      expect(contents.windowOpenHandler?.(windowOpenDetails(`${renderer}#/x`))).toEqual({ action: 'deny' });
      expect(standIn.calls.filter((call) => call.startsWith('openExternal'))).toEqual([]);
      // The started app is closed again so its host does not outlive the test.
      await closeApp(standIn);
    },
    CLOSE_WAIT_MS + 10_000,
  );

  it(
    'keeps the counts title against the page, signals the shown window, and ends the host before exit 0',
    async () => {
      process.env.TREEWARDEN_HOME = dir;
      const readyFile = join(dir, 'ready');
      process.argv = [...savedArgv, readyFileArg(readyFile)];
      const standIn = createElectronStandIn();
      const hosts = await loadMain(standIn);
      const window = await pollUntil(() => standIn.windows[0], { description: 'the window' });
      expect(window.title).toBe('Treewarden — 0 live · no leaks');
      const titleEvent = recordedEvent();
      window.emit('page-title-updated', titleEvent, 'Treewarden', true);
      expect(titleEvent.prevented).toBe(true);
      expect(window.title).toBe('Treewarden — 0 live · no leaks');
      expect(existsSync(readyFile)).toBe(false);
      expect(window.visible).toBe(false);
      window.emit('ready-to-show');
      expect(window.visible).toBe(true);
      expect(readFileSync(readyFile, 'utf8')).toBe('window-shown\n');
      window.close();
      expect(standIn.calls).toContain('releaseLock');
      await pollUntil(() => standIn.calls.includes('exit 0'), { deadlineMs: CLOSE_WAIT_MS, description: 'exit 0' });
      expect(hosts.map((host) => host.closes)).toEqual([1]);
      expect(standIn.calls.filter((call) => call.startsWith('showErrorBox'))).toEqual([]);
    },
    CLOSE_WAIT_MS + 10_000,
  );
});
