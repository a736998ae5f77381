/**
 * Runs the built preload (dist/preload.cjs) in a VM with a recording `electron`, as the sandbox
 * would: it may require only `electron`. Records every channel it touches, by kind.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { DESKTOP_DIST } from './load-main.js';

export const BUILT_PRELOAD = join(DESKTOP_DIST, 'preload.cjs');

type Listener = (event: unknown, payload: unknown) => void;

export function runPreload() {
  const exposed = new Map<string, unknown>();
  const invoked: [string, unknown][] = [];
  /** Channels the preload sends to main on (invoke, send, sendSync, postMessage). */
  const toMain = new Set<string>();
  const handlers = new Map<string, Listener>();
  const record = (channel: string, payload: unknown) => {
    toMain.add(channel);
    invoked.push([channel, payload]);
  };
  const electron = {
    contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.set(key, api) },
    ipcRenderer: {
      invoke: async (channel: string, payload: unknown) => {
        record(channel, payload);
        return { kind: 'reply', id: 1, ok: true, result: null };
      },
      send: record,
      sendSync: record,
      postMessage: record,
      on: (channel: string, handler: Listener) => handlers.set(channel, handler),
      once: (channel: string, handler: Listener) => handlers.set(channel, handler),
      addListener: (channel: string, handler: Listener) => handlers.set(channel, handler),
      removeListener: (channel: string) => handlers.delete(channel),
    },
  };
  const module = { exports: {} as Record<string, unknown> };
  const require = (name: string) => {
    if (name !== 'electron') throw new Error(`sandboxed preload cannot require ${name}`);
    return electron;
  };
  runInNewContext(readFileSync(BUILT_PRELOAD, 'utf8'), { require, module, exports: module.exports });
  return { exposed, invoked, toMain, handlers, exports: module.exports };
}
