/**
 * Runs the compiled preload (dist/preload.cjs) in a VM with a stand-in `electron`, as the sandbox
 * would: it must expose only `treewarden`, use only our channels, and hand the page payloads,
 * never Electron's event object.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';
import { type BridgeApi, IPC_CHANNEL_PREFIX, IPC_EVENT_CHANNEL, IPC_REQUEST_CHANNEL } from '@treewarden/protocol';
import { describe, expect, it } from 'vitest';

const PRELOAD = fileURLToPath(new URL('../dist/preload.cjs', import.meta.url));

function loadPreload() {
  const exposed = new Map<string, unknown>();
  const invoked: [string, unknown][] = [];
  const handlers = new Map<string, (event: unknown, payload: unknown) => void>();
  const electron = {
    contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.set(key, api) },
    ipcRenderer: {
      invoke: async (channel: string, payload: unknown) => {
        invoked.push([channel, payload]);
        return { kind: 'reply', id: 1, ok: true, result: null };
      },
      on: (channel: string, handler: (event: unknown, payload: unknown) => void) => handlers.set(channel, handler),
      removeListener: (channel: string) => handlers.delete(channel),
    },
  };
  const module = { exports: {} as Record<string, unknown> };
  const require = (name: string) => {
    if (name !== 'electron') throw new Error(`sandboxed preload cannot require ${name}`);
    return electron;
  };
  runInNewContext(readFileSync(PRELOAD, 'utf8'), { require, module, exports: module.exports });
  return { exposed, invoked, handlers, exports: module.exports };
}

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
