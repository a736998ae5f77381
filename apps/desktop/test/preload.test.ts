/**
 * Runs the compiled preload (dist/preload.cjs) in a VM with a stand-in `electron`, as the sandbox
 * would: it must expose only `treewarden`, use only our channels, and hand the page payloads,
 * never Electron's event object.
 */
import { type BridgeApi, IPC_CHANNEL_PREFIX, IPC_EVENT_CHANNEL, IPC_REQUEST_CHANNEL } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';
import { runPreload as loadPreload } from './support/run-preload.js';

describe('preload', () => {
  it('uses exactly the protocol channel names', () => {
    const { exports } = loadPreload();
    expect(exports.PRELOAD_CHANNELS).toEqual({ IPC_CHANNEL_PREFIX, IPC_REQUEST_CHANNEL, IPC_EVENT_CHANNEL });
  });

  it('exposes only window.treewarden, sending requests with increasing ids', async () => {
    const { exposed, invoked } = loadPreload();
    expect([...exposed.keys()]).toEqual(['treewarden']);
    const bridge = exposed.get('treewarden') as BridgeApi;
    await bridge.request({ type: 'listScenarios' });
    await bridge.request({ type: 'getHistory' });
    expect(invoked).toEqual([
      [IPC_REQUEST_CHANNEL, { kind: 'request', id: 1, command: { type: 'listScenarios' } }],
      [IPC_REQUEST_CHANNEL, { kind: 'request', id: 2, command: { type: 'getHistory' } }],
    ]);
  });

  it('passes event payloads without the Electron event, and unsubscribes', () => {
    const { exposed, handlers } = loadPreload();
    const bridge = exposed.get('treewarden') as BridgeApi;
    const received: unknown[] = [];
    const stop = bridge.onEvent((event) => received.push(event));
    const payload = { type: 'runEnded', runId: 'r', classification: 'ok', exitCode: 0 };
    handlers.get(IPC_EVENT_CHANNEL)?.({ sender: 'secret' }, payload);
    expect(received).toEqual([payload]);
    stop();
    expect(handlers.has(IPC_EVENT_CHANNEL)).toBe(false);
  });
});
