/**
 * GET /metrics over plain HTTP; with a token, every request without `Authorization: Bearer TOKEN`
 * gets 401. A port already taken is reported with the process that holds it (the `ports` code).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEntryLookup, createPortReader, describeListeners } from '@treewarden/engine';
import { isValidToken } from '../serve/security.js';
import type { ListenAddress } from './listen.js';
import { PROMETHEUS_CONTENT_TYPE } from './prom-text.js';

export interface MetricsServer {
  readonly address: string;
  readonly port: number;
  close(): Promise<void>;
}

export class PortInUseError extends Error {}

function answer(response: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8'): void {
  response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  response.end(body);
}

function bearer(request: IncomingMessage): string | null {
  const header = request.headers.authorization;
  return header?.startsWith('Bearer ') === true ? header.slice('Bearer '.length) : null;
}

/** Who listens on `port` now, in the ports command's words; null when it cannot be read. */
async function holderOf(port: number): Promise<string | null> {
  try {
    const map = await createPortReader().readAll();
    if (map === null) return null;
    const rows = describeListeners(map.listeners, await createEntryLookup()).filter((row) => row.port === port);
    const row = rows[0];
    return row === undefined ? null : `pid ${row.pid} (${row.args.join(' ').slice(0, 120)})`;
  } catch {
    return null;
  }
}

export async function startMetricsServer(
  listen: ListenAddress,
  token: string | null,
  metricsText: () => string,
): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    if (token !== null && !isValidToken(token, bearer(request))) {
      response.setHeader('www-authenticate', 'Bearer');
      answer(response, 401, 'a bearer token is required\n');
      return;
    }
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      answer(response, 404, 'only GET /metrics is served\n');
      return;
    }
    answer(response, 200, metricsText(), PROMETHEUS_CONTENT_TYPE);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EADDRINUSE') throw error;
    const holder = await holderOf(listen.port);
    throw new PortInUseError(
      `port ${listen.port} on ${listen.host} is in use${holder === null ? '' : ` by ${holder}`}: see \`treewarden ports\`, or pick another --listen`,
    );
  });
  const bound = server.address() as AddressInfo;
  return {
    address: bound.address,
    port: bound.port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
