/**
 * `treewarden serve`: the renderer over HTTP and the host over a WebSocket, on 127.0.0.1 only.
 * Every request must name our Host (DNS-rebinding defence); a request carrying an Origin must
 * come from the page we served; the WebSocket needs the per-start token (http-handler.ts says why
 * the page shell does not). No request may take the process down: targets are parsed
 * defensively (request-target.ts), both handlers sit behind a last-resort guard, malformed
 * requests are answered in `clientError`, and every socket we answer ourselves has an error handler.
 */
import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { MAX_MESSAGE_BYTES, TOKEN_QUERY_PARAM } from '@treewarden/protocol';
import { WebSocketServer } from 'ws';
import type { EngineHost } from '../host.js';
import {
  createFaultLog,
  type FaultLog,
  guardRequestHandler,
  guardUpgradeHandler,
  ignoreSocketErrors,
} from './fault-guard.js';
import { handleHttp } from './http-handler.js';
import { createToken, LOOPBACK_ADDRESS } from './security.js';
import { resolveRendererDir } from './static-files.js';
import { checkUpgrade, refuseUpgrade } from './upgrade-handler.js';
import { createWsBridge } from './ws-bridge.js';

/** A client must finish its request headers within this bound (slow-loris on loopback). */
export const HEADERS_TIMEOUT_MS = 15_000;
/** ...and the whole request within this one. */
export const REQUEST_TIMEOUT_MS = 30_000;

export interface ServeOptions {
  readonly host: EngineHost;
  /** 0 picks a free port. */
  readonly port?: number;
  readonly rendererDir?: string;
  /** Fixed token (tests); default a fresh random one per start. */
  readonly token?: string;
  /** Where the one logged fault goes; default stderr. */
  readonly logError?: (line: string) => void;
}

export interface ServeHandle {
  /** `http://127.0.0.1:PORT/?token=…` */
  readonly url: string;
  readonly port: number;
  readonly address: string;
  readonly token: string;
  /** Handler faults caught by the last-resort guards since start. */
  faultCount(): number;
  /** Stops accepting, closes every socket. Does not close the host (the caller owns it). */
  close(): Promise<void>;
}

/** Parser errors (bad request line, oversized headers, timeouts) get a status, never a crash. */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  ignoreSocketErrors(socket);
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? '431 Request Header Fields Too Large'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? '408 Request Timeout'
        : '400 Bad Request';
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`, () => socket.destroy());
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

function writeStderr(line: string): void {
  process.stderr.write(`${line}\n`);
}

function createGuardedServer(options: ServeOptions, token: string, faults: FaultLog, portOf: () => number): Server {
  const rendererDir = options.rendererDir ?? resolveRendererDir();
  const server = createServer(
    { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
    guardRequestHandler(
      (request, response) => handleHttp(request, response, { port: portOf(), token, rendererDir }),
      faults,
    ),
  );
  server.on('clientError', answerClientError);
  return server;
}

export async function startServe(options: ServeOptions): Promise<ServeHandle> {
  const token = options.token ?? createToken();
  const faults = createFaultLog(options.logError ?? writeStderr);
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, perMessageDeflate: false });
  const bridge = createWsBridge(options.host, faults);
  let port = options.port ?? 0;
  const server = createGuardedServer(options, token, faults, () => port);
  server.on(
    'upgrade',
    guardUpgradeHandler((request, socket, head) => {
      const refused = checkUpgrade(request, port, token);
      if (refused !== null) return refuseUpgrade(socket, refused);
      wss.handleUpgrade(request, socket, head, (ws) => bridge.attach(ws));
    }, faults),
  );

  port = await listen(server, port);
  return {
    url: `http://${LOOPBACK_ADDRESS}:${port}/?${TOKEN_QUERY_PARAM}=${token}`,
    port,
    address: LOOPBACK_ADDRESS,
    token,
    faultCount: () => faults.count(),
    close: () =>
      new Promise((resolve) => {
        bridge.close();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
