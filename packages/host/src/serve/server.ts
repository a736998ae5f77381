/**
 * `treewarden serve`: the renderer over HTTP and the host over a WebSocket, on 127.0.0.1 only.
 * Every request must name our Host (DNS-rebinding defence); a request carrying an Origin must
 * come from the page we served. The page and the WebSocket need the per-start token: the page so
 * that only whoever read the printed URL gets the UI, the socket because it is the engine.
 * Static assets (hashed JS/CSS of the public build) are served without it: they hold no secret,
 * and the page cannot add the token to the URLs the bundler wrote.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { MAX_MESSAGE_BYTES, TOKEN_QUERY_PARAM, WS_PATH } from '@treewarden/protocol';
import { WebSocketServer } from 'ws';
import type { EngineHost } from '../host.js';
import {
  createToken,
  isAllowedHost,
  isAllowedOrigin,
  isValidToken,
  LOOPBACK_ADDRESS,
  securityHeaders,
} from './security.js';
import { hasIndex, missingRendererPage, readStaticFile, resolveRendererDir, type StaticFile } from './static-files.js';
import { createWsBridge } from './ws-bridge.js';

export interface ServeOptions {
  readonly host: EngineHost;
  /** 0 picks a free port. */
  readonly port?: number;
  readonly rendererDir?: string;
  /** Fixed token (tests); default a fresh random one per start. */
  readonly token?: string;
}

export interface ServeHandle {
  /** `http://127.0.0.1:PORT/?token=…` */
  readonly url: string;
  readonly port: number;
  readonly address: string;
  readonly token: string;
  /** Stops accepting, closes every socket. Does not close the host (the caller owns it). */
  close(): Promise<void>;
}

interface HttpAnswer {
  readonly status: number;
  readonly body: Buffer;
  readonly contentType: string;
  readonly cacheControl: string;
}

function refusal(status: number, message: string): HttpAnswer {
  return {
    status,
    body: Buffer.from(`${message}\n`),
    contentType: 'text/plain; charset=utf-8',
    cacheControl: 'no-store',
  };
}

function found(file: StaticFile, isIndex: boolean): HttpAnswer {
  return {
    status: 200,
    body: file.body,
    contentType: file.contentType,
    cacheControl: isIndex ? 'no-store' : 'public, max-age=3600',
  };
}

function requestUrl(request: IncomingMessage): URL {
  return new URL(request.url ?? '/', 'http://placeholder');
}

/** Decides the answer to one HTTP request; the checks run in order, the first failure answers. */
function answerHttp(request: IncomingMessage, port: number, token: string, rendererDir: string): HttpAnswer {
  const { host, origin } = request.headers;
  if (!isAllowedHost(port, host)) return refusal(421, 'unknown Host: use the URL treewarden serve printed');
  if (origin !== undefined && !isAllowedOrigin(port, host, origin)) return refusal(403, 'cross-origin request refused');
  if (request.method !== 'GET' && request.method !== 'HEAD') return refusal(405, 'only GET is served');
  const url = requestUrl(request);
  if (url.pathname === '/' || url.pathname === '/index.html') {
    if (!isValidToken(token, url.searchParams.get(TOKEN_QUERY_PARAM))) {
      return refusal(401, 'missing or wrong token: open the exact URL treewarden serve printed');
    }
    const page = hasIndex(rendererDir) ? readStaticFile(rendererDir, '/index.html') : null;
    return found(page ?? missingRendererPage(rendererDir), true);
  }
  const file = readStaticFile(rendererDir, url.pathname);
  return file === null ? refusal(404, 'not found') : found(file, false);
}

function handleHttp(
  request: IncomingMessage,
  response: ServerResponse,
  port: number,
  token: string,
  rendererDir: string,
): void {
  const answer = answerHttp(request, port, token, rendererDir);
  response.writeHead(answer.status, {
    ...securityHeaders(port),
    'Content-Type': answer.contentType,
    'Cache-Control': answer.cacheControl,
  });
  response.end(request.method === 'HEAD' ? undefined : answer.body);
}

function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${reason.length}\r\n\r\n${reason}`,
  );
}

/** The upgrade's refusal, or null when it may become a WebSocket. Token last: no oracle for it. */
function checkUpgrade(request: IncomingMessage, port: number, token: string): [number, string] | null {
  const url = requestUrl(request);
  if (url.pathname !== WS_PATH) return [404, 'Not Found'];
  if (!isAllowedHost(port, request.headers.host)) return [421, 'Misdirected Request'];
  if (!isAllowedOrigin(port, request.headers.host, request.headers.origin)) return [403, 'Forbidden'];
  if (!isValidToken(token, url.searchParams.get(TOKEN_QUERY_PARAM))) return [401, 'Unauthorized'];
  return null;
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, LOOPBACK_ADDRESS, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

export async function startServe(options: ServeOptions): Promise<ServeHandle> {
  const token = options.token ?? createToken();
  const rendererDir = options.rendererDir ?? resolveRendererDir();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const bridge = createWsBridge(options.host);
  let port = options.port ?? 0;
  const server = createServer((request, response) => handleHttp(request, response, port, token, rendererDir));

  server.on('upgrade', (request, socket, head) => {
    const refused = checkUpgrade(request, port, token);
    if (refused !== null) return refuseUpgrade(socket, ...refused);
    wss.handleUpgrade(request, socket, head, (ws) => bridge.attach(ws));
  });

  port = await listen(server, port);
  const url = `http://${LOOPBACK_ADDRESS}:${port}/?${TOKEN_QUERY_PARAM}=${token}`;
  return {
    url,
    port,
    address: LOOPBACK_ADDRESS,
    token,
    close: () =>
      new Promise((resolve) => {
        bridge.close();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
