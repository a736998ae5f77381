import { type HostEvent, IPC_EVENT_CHANNEL, IPC_REQUEST_CHANNEL } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { createIpcRouter, createTrustedSenderCheck, type IpcSender, type RoutedHost } from '../src/node/ipc-router.js';

const RENDERER = 'file:///opt/treewarden/resources/renderer/index.html';
const OWN_ID = 7;

function fakeHost() {
  const calls: { command: unknown; clientId: string | undefined }[] = [];
  const listeners = new Set<(event: HostEvent) => void>();
  const dropped: string[] = [];
  const host: RoutedHost = {
    async handle(command, clientId) {
      calls.push({ command, clientId });
      return { ok: true, result: { echoed: command } };
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dropClient: (clientId) => dropped.push(clientId),
  };
  return { host, calls, listeners, dropped };
}

const trusted: IpcSender = { webContentsId: OWN_ID, frameUrl: `${RENDERER}?x=1#top`, isMainFrame: true };
const check = createTrustedSenderCheck(() => OWN_ID, RENDERER);
const request = { kind: 'request', id: 3, command: { type: 'listScenarios' } };

describe('IPC router', () => {
  it('answers a trusted sender with the reply for its request id', async () => {
    const { host, calls } = fakeHost();
    const router = createIpcRouter(host, check);
    const routed = await router.handleRequest(trusted, request);
    expect(routed).toEqual({
      kind: 'reply',
      reply: { kind: 'reply', id: 3, ok: true, result: { echoed: { type: 'listScenarios' } } },
    });
    expect(calls).toEqual([{ command: { type: 'listScenarios' }, clientId: 'window-7' }]);
    expect(router.requestChannel).toBe(IPC_REQUEST_CHANNEL);
  });

  it('drops messages from another webContents, a subframe, another page or a gone frame', async () => {
    const { host, calls } = fakeHost();
    const router = createIpcRouter(host, check);
    const untrusted: IpcSender[] = [
      { ...trusted, webContentsId: OWN_ID + 1 },
      { ...trusted, isMainFrame: false },
      { ...trusted, frameUrl: 'https://evil.example/index.html' },
      { ...trusted, frameUrl: 'file:///tmp/evil/index.html' },
      { ...trusted, frameUrl: 'file:///opt/treewarden/resources/renderer/index.html.evil' },
      { ...trusted, frameUrl: null },
      { ...trusted, frameUrl: 'not a url' },
    ];
    for (const sender of untrusted) expect((await router.handleRequest(sender, request)).kind).toBe('dropped');
    expect(calls).toHaveLength(0);
  });

  it('refuses invalid payloads from a trusted sender without reaching the host', async () => {
    const { host, calls } = fakeHost();
    const router = createIpcRouter(host, check);
    for (const payload of [
      undefined,
      'x',
      { kind: 'request', id: -1, command: { type: 'listScenarios' } },
      { kind: 'request', id: 1, command: { type: 'rm -rf' } },
    ]) {
      const routed = await router.handleRequest(trusted, payload);
      expect(routed.kind === 'reply' && routed.reply.ok).toBe(false);
    }
    expect(calls).toHaveLength(0);
  });

  it('forwards host events on the event channel until stopped, then forgets the window', () => {
    const { host, listeners, dropped } = fakeHost();
    const router = createIpcRouter(host, check);
    const sent: [string, unknown][] = [];
    const stop = router.forwardEvents(OWN_ID, (channel, message) => sent.push([channel, message]));
    const event: HostEvent = { type: 'runEnded', runId: 'r', classification: 'ok', exitCode: 0 };
    for (const listener of listeners) listener(event);
    expect(sent).toEqual([[IPC_EVENT_CHANNEL, event]]);
    stop();
    expect(listeners.size).toBe(0);
    expect(dropped).toEqual(['window-7']);
  });
});
