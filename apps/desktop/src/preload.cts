/**
 * The preload: the renderer's only way to the host. It exposes `window.treewarden` (BridgeApi)
 * and nothing else — no ipcRenderer, no channel names. Sandboxed preloads are CommonJS and can
 * require only `electron`, so the channel names are repeated here; a unit test keeps them equal
 * to the protocol's IPC_* constants.
 */

import type { BridgeApi, Command, HostEvent, Reply } from '@treewarden/protocol';
import { contextBridge, type IpcRendererEvent, ipcRenderer } from 'electron';

const IPC_CHANNEL_PREFIX = 'treewarden:';
const IPC_REQUEST_CHANNEL = 'treewarden:request';
const IPC_EVENT_CHANNEL = 'treewarden:event';

/** Refuses any channel outside our prefix, so a later edit cannot open a stray channel. */
function ownChannel(channel: string): string {
  if (!channel.startsWith(IPC_CHANNEL_PREFIX)) throw new Error(`treewarden preload: refused channel "${channel}"`);
  return channel;
}

let nextRequestId = 1;

const bridge: BridgeApi = {
  request(command: Command): Promise<Reply> {
    const id = nextRequestId;
    nextRequestId += 1;
    return ipcRenderer.invoke(ownChannel(IPC_REQUEST_CHANNEL), { kind: 'request', id, command }) as Promise<Reply>;
  },
  onEvent(listener: (event: HostEvent) => void): () => void {
    const channel = ownChannel(IPC_EVENT_CHANNEL);
    // The Electron event object (with its sender) never reaches the page: only the payload.
    const handler = (_event: IpcRendererEvent, payload: HostEvent) => listener(payload);
    ipcRenderer.on(channel, handler);
    return () => {
      ipcRenderer.removeListener(channel, handler);
    };
  },
};

contextBridge.exposeInMainWorld('treewarden', bridge);

export const PRELOAD_CHANNELS = { IPC_CHANNEL_PREFIX, IPC_REQUEST_CHANNEL, IPC_EVENT_CHANNEL };
