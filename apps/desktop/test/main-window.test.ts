/**
 * The window the built main process opens, against the recording Electron stand-in: every
 * BrowserWindow option that keeps the page sandboxed, the paths it loads (the built preload, the
 * built renderer, the icon) existing on disk, hidden until ready-to-show, the app-wide sandbox
 * before any window, the CSP header on every response, and no permission ever granted.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { WebContents } from 'electron';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, pollUntil, removeTempDir } from '../../../test-support/index.js';
import { DEFAULT_HEIGHT, DEFAULT_WIDTH, MIN_HEIGHT, MIN_WIDTH } from '../src/node/window-state.js';
import { createElectronStandIn, type ElectronStandIn, type StandInWindow } from './support/electron-stand-in.js';
import { CLOSE_WAIT_MS, closeApp, DESKTOP_DIST, loadMain, REPO_ROOT, unloadMain } from './support/load-main.js';

const BUILT_PRELOAD = join(DESKTOP_DIST, 'preload.cjs');
const BUILT_RENDERER = join(REPO_ROOT, 'apps/renderer/dist/index.html');
const ICON = join(REPO_ROOT, 'assets/icon.png');

/** The CSP directives of a policy string, by name. */
function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((words) => words[0] !== '')
      .map(([name = '', ...values]) => [name, values]),
  );
}

describe('main window', () => {
  const savedHome = process.env.TREEWARDEN_HOME;
  let dir = '';
  let standIn: ElectronStandIn;
  let window: StandInWindow;

  beforeAll(async () => {
    dir = makeTempDir('tw-main-window-');
    process.env.TREEWARDEN_HOME = dir;
    standIn = createElectronStandIn();
    await loadMain(standIn);
    window = await pollUntil(() => standIn.windows[0], { description: 'the window' });
  });
  afterAll(async () => {
    await closeApp(standIn);
    process.env.TREEWARDEN_HOME = savedHome;
    unloadMain();
    removeTempDir(dir);
  }, CLOSE_WAIT_MS + 10_000);

  it('opens exactly one window, after the app-wide sandbox was enabled', () => {
    expect(standIn.windows).toHaveLength(1);
    expect(standIn.calls.indexOf('enableSandbox')).toBeGreaterThan(-1);
    expect(standIn.calls.indexOf('enableSandbox')).toBeLessThan(standIn.calls.indexOf('new BrowserWindow'));
  });

  it('sandboxes the page: context isolation, sandbox, no Node, no webview, no insecure content', () => {
    const preferences = window.options.webPreferences;
    expect(preferences?.contextIsolation).toBe(true);
    expect(preferences?.sandbox).toBe(true);
    expect(preferences?.nodeIntegration).toBe(false);
    expect(preferences?.nodeIntegrationInWorker).toBe(false);
    expect(preferences?.nodeIntegrationInSubFrames ?? false).toBe(false);
    expect(preferences?.webviewTag ?? false).toBe(false);
    expect(preferences?.webSecurity ?? true).toBe(true);
    expect(preferences?.allowRunningInsecureContent ?? false).toBe(false);
    expect(preferences?.experimentalFeatures ?? false).toBe(false);
  });

  it('loads the built preload by absolute path', () => {
    const preload = window.options.webPreferences?.preload ?? '';
    expect(isAbsolute(preload)).toBe(true);
    expect(preload).toBe(BUILT_PRELOAD);
    expect(existsSync(preload)).toBe(true);
    // The built preload, not its source: CommonJS that exposes the bridge.
    expect(readFileSync(preload, 'utf8')).toContain('exposeInMainWorld');
  });

  it('loads the built renderer index.html from disk, nothing over the network', () => {
    const loads = standIn.calls.filter((call) => call.startsWith('loadFile ') || call.startsWith('loadURL '));
    expect(loads).toEqual([`loadFile ${BUILT_RENDERER}`]);
    expect(existsSync(BUILT_RENDERER)).toBe(true);
    expect(readFileSync(BUILT_RENDERER, 'utf8')).toMatch(/<script type="module"[^>]* src="\.\/assets\/index-/);
  });

  it('has the app icon, a title, the saved (here default) size and a minimum size', () => {
    expect(window.options.icon).toBe(ICON);
    expect(existsSync(ICON)).toBe(true);
    expect(window.options.title).toBe('Treewarden');
    expect(window.options.width).toBe(DEFAULT_WIDTH);
    expect(window.options.height).toBe(DEFAULT_HEIGHT);
    expect(window.options.minWidth).toBe(MIN_WIDTH);
    expect(window.options.minHeight).toBe(MIN_HEIGHT);
    expect(MIN_WIDTH).toBeLessThanOrEqual(DEFAULT_WIDTH);
    expect(MIN_HEIGHT).toBeLessThanOrEqual(DEFAULT_HEIGHT);
  });

  it('stays hidden until ready-to-show (no white flash), then shows once', () => {
    expect(window.options.show).toBe(false);
    expect(window.visible).toBe(false);
    window.emit('ready-to-show');
    expect(window.visible).toBe(true);
    expect(standIn.calls.filter((call) => call.startsWith('show '))).toEqual([`show ${window.webContents.id}`]);
    window.emit('ready-to-show');
    expect(standIn.calls.filter((call) => call.startsWith('show '))).toHaveLength(1);
  });

  it('adds a strict CSP header to every response and keeps the other headers', () => {
    const listener = standIn.installed.headersReceived;
    expect(listener).toBeDefined();
    const answers: { responseHeaders?: Record<string, string | string[]>; cancel?: boolean }[] = [];
    listener?.(
      {
        id: 1,
        url: `file://${BUILT_RENDERER}`,
        method: 'GET',
        timestamp: 0,
        resourceType: 'mainFrame',
        referrer: '',
        statusLine: 'HTTP/1.1 200 OK',
        statusCode: 200,
        responseHeaders: { 'X-Other': ['kept'] },
      },
      (response) => answers.push(response),
    );
    expect(answers).toHaveLength(1);
    const headers = answers[0]?.responseHeaders ?? {};
    expect(answers[0]?.cancel ?? false).toBe(false);
    expect(headers['X-Other']).toEqual(['kept']);
    const policy = headers['Content-Security-Policy'];
    expect(Array.isArray(policy) ? policy : [policy]).toHaveLength(1);
    const csp = directives(String(Array.isArray(policy) ? policy[0] : policy));
    expect(csp.get('default-src')).toEqual(["'self'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'none'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    for (const values of csp.values()) {
      expect(values).not.toContain("'unsafe-eval'");
      expect(values).not.toContain("'unsafe-inline'");
      expect(values).not.toContain('*');
    }
  });

  it('denies every permission request and check', () => {
    const request = standIn.installed.permissionRequest;
    const check = standIn.installed.permissionCheck;
    expect(request).toBeDefined();
    expect(check).toBeDefined();
    // The handlers ignore the web contents; Electron's type wants the whole object.
    const contents = window.webContents as unknown as WebContents;
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal'] as const) {
      const granted: boolean[] = [];
      request?.(contents, permission, (answer) => granted.push(answer), {
        isMainFrame: true,
        requestingUrl: `file://${BUILT_RENDERER}`,
      });
      expect(granted).toEqual([false]);
      expect(
        check?.(contents, permission, 'file://', {
          isMainFrame: true,
          embeddingOrigin: 'file://',
          requestingUrl: `file://${BUILT_RENDERER}`,
        }),
      ).toBe(false);
    }
  });
});
