/**
 * src/main.ts itself, run in Node against a recording stand-in for `electron`: a start-up throw
 * (relative TREEWARDEN_HOME, a state dir that cannot be created) shows the error, gives the lock
 * up and exits 1; a normal start keeps the window title under the main's control, signals
 * `npm start` once the window is shown, and on close ends the host before exiting 0.
 */
import { EventEmitter } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeTempDir, removeTempDir } from '../../../packages/engine/test/helpers/fixtures.js';
import { waitFor } from '../../../packages/engine/test/helpers/wait-for.js';
import { readyFileArg } from '../src/node/ready-signal.js';
import { createElectronStandIn, recordedEvent } from './support/electron-stand-in.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The host's close (poller stop, no runs) on a loaded machine. */
const CLOSE_WAIT_MS = 20_000;

async function loadMain(standIn: ReturnType<typeof createElectronStandIn>): Promise<void> {
  vi.resetModules();
  vi.doMock('electron', () => standIn.module);
  await import('../src/main.js');
}

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
    vi.doUnmock('electron');
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
    await waitFor(() => standIn.calls.some((call) => call.startsWith('exit')), { description: 'the exit' });
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
    expect(readFileSync(readyFile, 'utf8')).toBe('handed-over\n');
  });

  it(
    'every web contents may navigate only to the renderer file and opens no window or link',
    async () => {
      process.env.TREEWARDEN_HOME = dir;
      const standIn = createElectronStandIn();
      await loadMain(standIn);
      let openHandler: ((details: { url: string }) => { action: string }) | null = null;
      const contents = Object.assign(new EventEmitter(), {
        setWindowOpenHandler: (handler: typeof openHandler) => {
          openHandler = handler;
        },
      });
      standIn.app.emit('web-contents-created', {}, contents);
      const renderer = pathToFileURL(join(ROOT, 'apps/renderer/dist/index.html')).href;
      const navigate = (url: string) => {
        const event = Object.assign(recordedEvent(), { url });
        contents.emit('will-navigate', event);
        return event.prevented;
      };
      expect(navigate(`${renderer}#/system`)).toBe(false);
      expect(navigate(`${renderer}.evil`)).toBe(true);
      expect(navigate('https://example.com/')).toBe(true);
      const redirect = recordedEvent();
      contents.emit('will-redirect', redirect);
      expect(redirect.prevented).toBe(true);
      expect(openHandler).not.toBeNull();
      expect(openHandler?.({ url: 'https://example.com/docs' })).toEqual({ action: 'deny' });
      expect(standIn.calls.filter((call) => call.startsWith('openExternal'))).toEqual([]);
      // The started app is closed again so its host does not outlive the test.
      await waitFor(() => standIn.windows[0], { description: 'the window' });
      standIn.windows[0]?.emit('closed');
      await waitFor(() => standIn.calls.includes('exit 0'), { timeoutMs: CLOSE_WAIT_MS, description: 'exit 0' });
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
      await loadMain(standIn);
      const window = await waitFor(() => standIn.windows[0], { description: 'the window' });
      expect(window.title).toBe('Treewarden — 0 live · no leaks');
      const titleEvent = recordedEvent();
      window.emit('page-title-updated', titleEvent, 'Treewarden', true);
      expect(titleEvent.prevented).toBe(true);
      expect(window.title).toBe('Treewarden — 0 live · no leaks');
      expect(existsSync(readyFile)).toBe(false);
      window.emit('ready-to-show');
      expect(readFileSync(readyFile, 'utf8')).toBe('window-shown\n');
      window.emit('close');
      window.emit('closed');
      expect(standIn.calls).toContain('releaseLock');
      await waitFor(() => standIn.calls.includes('exit 0'), { timeoutMs: CLOSE_WAIT_MS, description: 'exit 0' });
      expect(standIn.calls.filter((call) => call.startsWith('showErrorBox'))).toEqual([]);
    },
    CLOSE_WAIT_MS + 10_000,
  );
});
