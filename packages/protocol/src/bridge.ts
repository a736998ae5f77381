/**
 * What the UI sees of its host, whichever transport carries it: in Electron the preload exposes
 * this object as `window.treewarden`; in a browser the renderer builds it over the WebSocket.
 */
import type { Command } from './commands.js';
import type { Reply } from './envelope.js';
import type { HostEvent } from './events.js';

export interface BridgeApi {
  /** Sends one validated command; resolves with the host's reply (never rejects for a refused command). */
  request(command: Command): Promise<Reply>;
  /** Subscribes to pushed events; returns the unsubscribe function. */
  onEvent(listener: (event: HostEvent) => void): () => void;
}

/** Path of the loopback WebSocket served by `treewarden serve`; the token rides in `?token=`. */
export const WS_PATH = '/ws';
export const TOKEN_QUERY_PARAM = 'token';
