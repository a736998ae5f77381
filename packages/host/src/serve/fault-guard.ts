/**
 * The last line of defence around the server's handlers: whatever a handler throws, the request
 * gets a 500 (or its socket is destroyed) and the process stays up. The first fault is logged
 * with its stack; later ones are only counted, so a flood of hostile requests cannot flood the log.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

export interface FaultLog {
  report(where: string, error: unknown): void;
  /** Faults seen since start (the logged one included). */
  count(): number;
}

export function createFaultLog(write: (line: string) => void): FaultLog {
  let faults = 0;
  return {
    report(where, error) {
      faults += 1;
      if (faults > 1) return;
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
      write(
        `treewarden: serve: unexpected error in the ${where} handler (answered, still serving; later ones are not logged): ${detail}`,
      );
    },
    count: () => faults,
  };
}

/** A socket we answer ourselves must never take the process down with a late error (ECONNRESET). */
export function ignoreSocketErrors(socket: Duplex): void {
  socket.on('error', () => {
    // Reset by the peer after (or while) we answered: nothing left to tell it.
  });
}

function answerInternalError(response: ServerResponse): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(500, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'close',
  });
  response.end('internal error\n');
}

export function guardRequestHandler(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
  faults: FaultLog,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    try {
      handler(request, response);
    } catch (error) {
      faults.report('request', error);
      try {
        answerInternalError(response);
      } catch {
        response.destroy();
      }
    }
  };
}

export function guardUpgradeHandler(
  handler: (request: IncomingMessage, socket: Duplex, head: Buffer) => void,
  faults: FaultLog,
): (request: IncomingMessage, socket: Duplex, head: Buffer) => void {
  return (request, socket, head) => {
    ignoreSocketErrors(socket);
    try {
      handler(request, socket, head);
    } catch (error) {
      faults.report('upgrade', error);
      socket.destroy();
    }
  };
}
