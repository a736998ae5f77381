/**
 * Wraps the preload's `window.treewarden` so its events pass the same validation as WebSocket
 * frames: the renderer trusts nothing it did not parse.
 */
import { type BridgeApi, parseServerMessage } from '@treewarden/protocol';

export function wrapPreloadBridge(preload: BridgeApi): BridgeApi {
  return {
    request: async (command) => {
      const raw: unknown = await preload.request(command);
      const parsed = parseServerMessage(raw);
      if (parsed.ok && parsed.value.kind === 'reply') return parsed.value;
      return {
        kind: 'reply',
        id: 0,
        ok: false,
        error: parsed.ok ? 'The host answered with an event instead of a reply.' : parsed.error,
      };
    },
    onEvent: (listener) =>
      preload.onEvent((event: unknown) => {
        const parsed = parseServerMessage({ kind: 'event', event });
        if (parsed.ok && parsed.value.kind === 'event') listener(parsed.value.event);
        else console.warn(`treewarden: dropped a host event: ${parsed.ok ? 'not an event' : parsed.error}`);
      }),
  };
}

export function findPreloadBridge(): BridgeApi | null {
  const candidate = (globalThis as { treewarden?: unknown }).treewarden;
  if (candidate && typeof candidate === 'object' && 'request' in candidate && 'onEvent' in candidate)
    return candidate as BridgeApi;
  return null;
}
