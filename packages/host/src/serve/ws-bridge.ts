/**
 * One WebSocket client of the host: every frame is parsed with the protocol's `parseRequest`
 * (a malformed one gets an error reply and the connection stays), every reply carries the
 * request's id, and host events are pushed to every client.
 */
import { randomUUID } from 'node:crypto';
import { parseRequest, type Reply, type ServerMessage } from '@treewarden/protocol';
import type { RawData, WebSocket } from 'ws';
import type { EngineHost } from '../host.js';

/** A client this far behind on events is dropped (it reconnects and resynchronises). */
export const MAX_BUFFERED_BYTES = 32 * 1024 * 1024;

/** Best effort: the id of a request that failed validation, so the client can match the error. */
function idOf(text: string): number {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null) {
      const id = (value as { id?: unknown }).id;
      if (typeof id === 'number' && Number.isInteger(id) && id >= 0) return id;
    }
  } catch {
    // Not JSON: the error reply says so; id 0 stands for "unknown".
  }
  return 0;
}

function send(socket: WebSocket, message: ServerMessage | string): void {
  if (socket.readyState !== socket.OPEN) return;
  socket.send(typeof message === 'string' ? message : JSON.stringify(message));
}

async function answer(
  host: EngineHost,
  clientId: string,
  socket: WebSocket,
  data: RawData,
  isBinary: boolean,
): Promise<void> {
  if (isBinary) {
    send(socket, { kind: 'reply', id: 0, ok: false, error: 'binary frames are not accepted: send JSON text' });
    return;
  }
  const text = Array.isArray(data)
    ? Buffer.concat(data).toString('utf8')
    : Buffer.from(data as ArrayBuffer).toString('utf8');
  const parsed = parseRequest(text);
  if (!parsed.ok) {
    send(socket, { kind: 'reply', id: idOf(text), ok: false, error: parsed.error });
    return;
  }
  const result = await host.handle(parsed.value.command, clientId);
  const reply: Reply = result.ok
    ? { kind: 'reply', id: parsed.value.id, ok: true, result: result.result }
    : { kind: 'reply', id: parsed.value.id, ok: false, error: result.error };
  send(socket, reply);
}

export interface WsBridge {
  attach(socket: WebSocket): void;
  close(): void;
}

export function createWsBridge(host: EngineHost): WsBridge {
  const clients = new Set<WebSocket>();
  const unsubscribe = host.onEvent((event) => {
    const text = JSON.stringify({ kind: 'event', event } satisfies ServerMessage);
    for (const socket of clients) {
      if (socket.bufferedAmount > MAX_BUFFERED_BYTES) socket.terminate();
      else send(socket, text);
    }
  });
  return {
    attach(socket) {
      const clientId = randomUUID();
      clients.add(socket);
      socket.on('message', (data, isBinary) => void answer(host, clientId, socket, data, isBinary));
      socket.on('close', () => {
        clients.delete(socket);
        host.dropClient(clientId);
      });
      // Protocol errors (e.g. a frame over maxPayload) are closed by ws itself with the right
      // code (1009); terminating here would cut that close frame off.
      socket.on('error', () => {});
    },
    close() {
      unsubscribe();
      for (const socket of clients) socket.close(1001, 'server shutting down');
      clients.clear();
    },
  };
}
