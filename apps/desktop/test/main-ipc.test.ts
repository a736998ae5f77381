/**
 * The IPC surface of the built main process, against the recording Electron stand-in and the
 * built preload run in a VM: the channels main handles are exactly those the preload sends on,
 * the channels main pushes on exactly those the preload listens to; a malformed payload from our
 * own page gets a clear error and never reaches the host; any other sender (another web
 * contents, an iframe, a frame that navigated away or is gone) is refused before parsing.
 */
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BridgeApi, Reply } from '@treewarden/protocol';
import { IPC_EVENT_CHANNEL, IPC_REQUEST_CHANNEL, MAX_MESSAGE_BYTES } from '@treewarden/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, pollUntil, removeTempDir } from '../../../test-support/index.js';
import { createElectronStandIn, type ElectronStandIn, type StandInWindow } from './support/electron-stand-in.js';
import { CLOSE_WAIT_MS, closeApp, loadMain, REPO_ROOT, unloadMain, type WatchedHost } from './support/load-main.js';
import { runPreload } from './support/run-preload.js';

const RENDERER_URL = pathToFileURL(join(REPO_ROOT, 'apps/renderer/dist/index.html')).href;
/** What a startRun that reached the host would create. */
const MARKER = join(tmpdir(), `tw-main-ipc-marker-${process.pid}`);
/** The first snapshot event from the host's poller on a loaded machine. */
const FIRST_EVENT_WAIT_MS = 15_000;

describe('main IPC', () => {
  const savedHome = process.env.TREEWARDEN_HOME;
  let dir = '';
  let standIn: ElectronStandIn;
  let window: StandInWindow;
  let host: WatchedHost;

  /** A request as our own page sends it: our window, its main frame, at the renderer file. */
  const fromOurPage = (payload: unknown) =>
    standIn.invoke(IPC_REQUEST_CHANNEL, { contents: window.webContents, frame: window.webContents.mainFrame }, payload);

  beforeAll(async () => {
    dir = makeTempDir('tw-main-ipc-');
    process.env.TREEWARDEN_HOME = dir;
    standIn = createElectronStandIn();
    const hosts = await loadMain(standIn);
    window = await pollUntil(() => standIn.windows[0], { description: 'the window' });
    window.webContents.mainFrame.url = `${RENDERER_URL}#/runs`;
    host = await pollUntil(() => hosts[0], { description: 'the host' });
  });
  afterAll(async () => {
    await closeApp(standIn);
    process.env.TREEWARDEN_HOME = savedHome;
    unloadMain();
    removeTempDir(dir);
    rmSync(MARKER, { force: true });
  }, CLOSE_WAIT_MS + 10_000);

  it('handles exactly the channels the preload sends on, and pushes on exactly those it listens to', async () => {
    const preload = runPreload();
    const bridge = preload.exposed.get('treewarden') as BridgeApi;
    // Every method of the bridge, so each channel it can use is recorded.
    expect(Object.keys(bridge).sort()).toEqual(['onEvent', 'request']);
    await bridge.request({ type: 'listScenarios' });
    bridge.onEvent(() => {});
    expect(standIn.handledChannels()).toEqual(preload.toMain);
    expect(preload.toMain).toEqual(new Set([IPC_REQUEST_CHANNEL]));

    await pollUntil(() => window.webContents.sent.length > 0, {
      deadlineMs: FIRST_EVENT_WAIT_MS,
      description: 'an event pushed to the window',
    });
    const pushed = new Set(window.webContents.sent.map((message) => message.channel));
    expect(pushed).toEqual(new Set(preload.handlers.keys()));
    expect(pushed).toEqual(new Set([IPC_EVENT_CHANNEL]));
  });

  it("answers our page's well-formed request through the host", async () => {
    const before = host.handled.length;
    const reply = (await fromOurPage({ kind: 'request', id: 7, command: { type: 'listScenarios' } })) as Reply;
    expect(reply).toMatchObject({ kind: 'reply', id: 7, ok: true });
    expect(host.handled.slice(before)).toEqual([{ type: 'listScenarios' }]);
  });

  it.each([
    ['a number', 42, /^invalid request: \(root\)/],
    ['text that is not JSON', 'listScenarios', /^request is not valid JSON$/],
    ['no command', { kind: 'request', id: 1 }, /^invalid request: command/],
    ['a wrong kind', { kind: 'reply', id: 1, command: { type: 'listScenarios' } }, /^invalid request: kind/],
    ['a negative id', { kind: 'request', id: -1, command: { type: 'listScenarios' } }, /^invalid request: id/],
    ['an unknown command', { kind: 'request', id: 1, command: { type: 'format' } }, /^invalid request: command\.type/],
    [
      'a startRun below the timeout bound',
      {
        kind: 'request',
        id: 1,
        command: { type: 'startRun', command: '/bin/sh', args: ['-c', `touch ${MARKER}`], timeoutSeconds: 0 },
      },
      /^invalid request: command\.timeoutSeconds/,
    ],
    [
      'a startRun with arguments that are not strings',
      { kind: 'request', id: 1, command: { type: 'startRun', command: '/bin/sh', args: [1], timeoutSeconds: 5 } },
      /^invalid request: command\.args\.0/,
    ],
    [
      'a kill naming a pid as text',
      { kind: 'request', id: 1, command: { type: 'killTree', target: { pid: '1', startTime: 1 } } },
      /^invalid request: command\.target/,
    ],
    ['a message past the size cap', 'x'.repeat(MAX_MESSAGE_BYTES + 1), /larger than/],
  ])('refuses %s with a clear error, before the host', async (_name, payload, error) => {
    const before = host.handled.length;
    const reply = (await fromOurPage(payload)) as Reply;
    expect(reply).toMatchObject({ kind: 'reply', id: 0, ok: false });
    expect(reply.ok ? '' : reply.error).toMatch(error);
    expect(host.handled.length).toBe(before);
    expect(existsSync(MARKER)).toBe(false);
  });

  it('refuses every sender but the main frame of our window at the renderer file, before parsing', async () => {
    const valid = { kind: 'request', id: 3, command: { type: 'listScenarios' } };
    const before = host.handled.length;
    const iframe = { url: RENDERER_URL };
    // Another web contents whose main frame shows our very file (a second page, a devtools frame).
    const foreign = standIn.foreignContents();
    foreign.mainFrame.url = RENDERER_URL;
    const senders = [
      { contents: foreign, frame: foreign.mainFrame },
      { contents: window.webContents, frame: iframe },
      { contents: window.webContents, frame: null },
    ];
    for (const sender of senders) {
      await expect(standIn.invoke(IPC_REQUEST_CHANNEL, sender, valid)).rejects.toThrow('refused');
    }
    for (const url of ['https://example.com/', `${RENDERER_URL}.evil`, 'file:///etc/passwd']) {
      window.webContents.mainFrame.url = url;
      await expect(fromOurPage(valid)).rejects.toThrow('refused');
    }
    window.webContents.mainFrame.url = RENDERER_URL;
    expect(host.handled.length).toBe(before);
    await expect(fromOurPage(valid)).resolves.toMatchObject({ id: 3, ok: true });
  });
});
