/**
 * BridgeApi over the loopback WebSocket of `treewarden serve`. Every frame is validated with
 * parseServerMessage before it reaches the store; the socket reconnects with capped backoff.
 */
import { type BridgeApi, type Command, type HostEvent, parseServerMessage, type Reply } from '@treewarden/protocol';
import type { ConnectionStatus } from '../store/types';

/** First reconnect delay; doubles per failed attempt up to MAX_BACKOFF_MS. */
export const MIN_BACKOFF_MS = 250;
export const MAX_BACKOFF_MS = 5000;
/** A kill may wait a grace period (up to 60 s) plus verification, so replies get generous time. */
export const REQUEST_TIMEOUT_MS = 90_000;

export interface WsBridgeOptions {
  url: string;
  onStatus(status: ConnectionStatus, message: string | null): void;
  createSocket?: (url: string) => WebSocket;
}

export interface ClosableBridge extends BridgeApi {
  close(): void;
}

interface Pending {
  resolve(reply: Reply): void;
  timer: ReturnType<typeof setTimeout>;
}

export function backoffDelay(attempt: number): number {
  return Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS * 2 ** attempt);
}

function describeClose(everOpened: boolean, event: CloseEvent): string {
  if (event.reason) return `Connection closed: ${event.reason} (code ${event.code}).`;
  if (!everOpened)
    return 'Could not connect to the Treewarden host. The token may be wrong or the server stopped: restart `treewarden serve` and open the URL it prints.';
  return `Connection to the host lost (code ${event.code}); reconnecting…`;
}

export function createWsBridge(options: WsBridgeOptions): ClosableBridge {
  const createSocket = options.createSocket ?? ((url: string) => new WebSocket(url));
  const listeners = new Set<(event: HostEvent) => void>();
  const pending = new Map<number, Pending>();
  let socket: WebSocket | null = null;
  let nextId = 1;
  let attempt = 0;
  let everOpened = false;
  let closed = false;
  let reconnectTimer: ReturnType<typeof setTimeout> | null = null;

  function settle(id: number, reply: Reply): void {
    const entry = pending.get(id);
    if (!entry) return;
    clearTimeout(entry.timer);
    pending.delete(id);
    entry.resolve(reply);
  }

  function failAllPending(error: string): void {
    for (const id of [...pending.keys()]) settle(id, { kind: 'reply', id, ok: false, error });
  }

  function handleFrame(data: unknown): void {
    const parsed = parseServerMessage(data);
    if (!parsed.ok) {
      // An invalid frame is dropped, never half-applied; say so once in the console for the developer.
      console.warn(`treewarden: dropped a server message: ${parsed.error}`);
      return;
    }
    const message = parsed.value;
    if (message.kind === 'reply') settle(message.id, message);
    else for (const listener of listeners) listener(message.event);
  }

  function scheduleReconnect(): void {
    if (closed || reconnectTimer) return;
    const delay = backoffDelay(attempt);
    attempt += 1;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null;
      connect();
    }, delay);
  }

  function connect(): void {
    options.onStatus('connecting', null);
    const current = createSocket(options.url);
    socket = current;
    current.onopen = () => {
      attempt = 0;
      everOpened = true;
      options.onStatus('open', null);
    };
    current.onmessage = (event: MessageEvent) => handleFrame(event.data);
    current.onclose = (event: CloseEvent) => {
      if (socket !== current) return;
      socket = null;
      failAllPending('The connection to the host closed before it answered; check the outcome after it reconnects.');
      options.onStatus('closed', describeClose(everOpened, event));
      scheduleReconnect();
    };
  }

  connect();

  return {
    request(command: Command): Promise<Reply> {
      const id = nextId++;
      if (!socket || socket.readyState !== WebSocket.OPEN)
        return Promise.resolve({
          kind: 'reply',
          id,
          ok: false,
          error: 'Not connected to the Treewarden host; wait for it to reconnect.',
        });
      return new Promise<Reply>((resolve) => {
        const timer = setTimeout(
          () =>
            settle(id, {
              kind: 'reply',
              id,
              ok: false,
              error: `The host did not answer ${command.type} within ${REQUEST_TIMEOUT_MS / 1000} s.`,
            }),
          REQUEST_TIMEOUT_MS,
        );
        pending.set(id, { resolve, timer });
        socket?.send(JSON.stringify({ kind: 'request', id, command }));
      });
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      closed = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      failAllPending('The bridge was closed.');
      socket?.close();
      socket = null;
    },
  };
}
