/**
 * Decides whether an HTTP upgrade may become the engine's WebSocket: the path, our Host, the
 * page's Origin, then the token (last, so the refusals give no oracle for it). A refused upgrade
 * is answered on the raw socket, which then closes whatever the peer does.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { TOKEN_QUERY_PARAM, WS_PATH } from '@treewarden/protocol';
import { parseRequestTarget, singleQueryValue } from './request-target.js';
import { hasSingleHostHeader, isAllowedHost, isAllowedOrigin, isValidToken } from './security.js';

export type UpgradeRefusal = readonly [status: number, reason: string];

/** The upgrade's refusal, or null when it may become a WebSocket. */
export function checkUpgrade(request: IncomingMessage, port: number, token: string): UpgradeRefusal | null {
  const parsed = parseRequestTarget(request.url);
  if (!parsed.ok) return [400, 'Bad Request'];
  if (parsed.target.path !== WS_PATH) return [404, 'Not Found'];
  if (!hasSingleHostHeader(request.rawHeaders)) return [400, 'Bad Request'];
  if (!isAllowedHost(port, request.headers.host)) return [421, 'Misdirected Request'];
  if (!isAllowedOrigin(port, request.headers.host, request.headers.origin)) return [403, 'Forbidden'];
  if (!isValidToken(token, singleQueryValue(parsed.target.query, TOKEN_QUERY_PARAM))) return [401, 'Unauthorized'];
  return null;
}

/** Writes the refusal and closes the socket once it is flushed (the caller attached an error handler). */
export function refuseUpgrade(socket: Duplex, [status, reason]: UpgradeRefusal): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${reason.length}\r\n\r\n${reason}`,
    () => socket.destroy(),
  );
}
