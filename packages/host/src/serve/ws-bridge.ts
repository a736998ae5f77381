/**
 * One WebSocket client of the host: every frame is parsed with the protocol's `parseRequest`
 * (a malformed one gets an error reply and the connection stays), every reply carries the
 * request's id, and host events are pushed to every client. Size is capped before we see a frame
 * (the server's maxPayload closes with 1009), ws itself closes on invalid UTF-8 (1007), and
 * whatever a request throws is answered as an error, never left to crash the process.
 */
import { randomUUID } from 'node:crypto';
import { parseRequest, type Reply, type ServerMessage } from '@treewarden/protocol';
import type { RawData, WebSocket } from 'ws';
import type { EngineHost } from '../host.js';
import type { FaultLog } from './fault-guard.js';

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

function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

function send(socket: WebSocket, message: ServerMessage | string): void {
  if (socket.readyState !== socket.OPEN) return;
  socket.send(typeof message === 'string' ? message : JSON.stringify(message));
}

interface Connection {
  readonly host: EngineHost;
  readonly clientId: string;
  readonly socket: WebSocket;
  readonly faults: FaultLog;
}

function internalError(id: number): Reply {
  return { kind: 'reply', id, ok: false, error: 'internal error while handling the request; see the serve log' };
}

async function answer(connection: Connection, data: RawData, isBinary: boolean): Promise<void> {
  const { host, clientId, socket } = connection;
  if (isBinary) {
    send(socket, { kind: 'reply', id: 0, ok: false, error: 'binary frames are not accepted: send JSON text' });
    return;
  }
  const text = textOf(data);
  const parsed = parseRequest(text);
  if (!parsed.ok) {
    send(socket, { kind: 'reply', id: idOf(text), ok: false, error: parsed.error });
    return;
  }
  const { id, command } = parsed.value;
  try {
    const result = await host.handle(command, clientId);
    send(
      socket,
      result.ok
        ? { kind: 'reply', id, ok: true, result: result.result }
        : { kind: 'reply', id, ok: false, error: result.error },
    );
  } catch (error) {
    // host.handle promises never to reject and every result to serialise; if one day it does, the
    // client still gets its answer and the process stays up.
    connection.faults.report('WebSocket message', error);
    send(socket, internalError(id));
  }
}

export interface WsBridge {
  attach(socket: WebSocket): void;
  close(): void;
}

export function createWsBridge(host: EngineHost, faults: FaultLog): WsBridge {
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
      const connection: Connection = { host, clientId, socket, faults };
      socket.on('message', (data, isBinary) => {
        answer(connection, data, isBinary).catch((error: unknown) => {
          faults.report('WebSocket message', error);
          send(socket, internalError(0));
        });
      });
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
