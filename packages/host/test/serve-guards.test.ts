/**
 * The last-resort guards: whatever a handler throws, the client gets an answer (500, a closed
 * socket, or an error reply with its request id), the fault is logged once, and the server keeps
 * serving. Real sockets against real servers; only the failure itself is injected.
 */
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { parseServerMessage, type ServerMessage, WS_PATH } from '@treewarden/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { waitFor } from '../../engine/test/helpers/index.js';
import { createFaultLog, guardRequestHandler, guardUpgradeHandler } from '../src/serve/fault-guard.js';
import { type ServeHandle, startServe } from '../src/serve/server.js';
import { rawGet } from './raw-http.js';
import { createStubHost } from './stub-host.js';

const TOKEN = 'G'.repeat(43);
const REPLY_WAIT_MS = 30_000;

function listenOnLoopback(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

interface Client {
  readonly socket: WebSocket;
  readonly messages: ServerMessage[];
  reply(id: number): Promise<ServerMessage & { kind: 'reply' }>;
}

function openClient(port: number): Promise<Client> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}${WS_PATH}?token=${TOKEN}`, {
    origin: `http://127.0.0.1:${port}`,
  });
  const messages: ServerMessage[] = [];
  socket.on('message', (data) => {
    const parsed = parseServerMessage(data.toString());
    if (parsed.ok) messages.push(parsed.value);
  });
  const reply = (id: number) =>
    waitFor(() => messages.find((m): m is ServerMessage & { kind: 'reply' } => m.kind === 'reply' && m.id === id), {
      timeoutMs: REPLY_WAIT_MS,
      description: `reply ${id}`,
    });
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ socket, messages, reply }));
    socket.once('error', reject);
  });
}

function request(id: number, command: unknown = { type: 'listScenarios' }): string {
  return JSON.stringify({ kind: 'request', id, command });
}

describe('last-resort guards around the HTTP handlers', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await closeServer(server);
  });

  it('answers 500 to a request whose handler throws, logs once, and keeps serving', async () => {
    const logged: string[] = [];
    const faults = createFaultLog((line) => logged.push(line));
    let calls = 0;
    const server = createServer(
      guardRequestHandler((_request, response) => {
        calls += 1;
        if (calls <= 2) throw new Error(`handler bug ${calls}`);
        response.end('fine');
      }, faults),
    );
    servers.push(server);
    const port = await listenOnLoopback(server);
    expect((await rawGet(port, '/')).status).toBe(500);
    expect((await rawGet(port, '/')).status).toBe(500);
    const healthy = await rawGet(port, '/');
    expect(healthy.status).toBe(200);
    expect(healthy.body).toBe('fine');
    expect(faults.count()).toBe(2);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('handler bug 1');
  });

  it('destroys the socket of an upgrade whose handler throws, logs once, and keeps serving', async () => {
    const logged: string[] = [];
    const faults = createFaultLog((line) => logged.push(line));
    const server = createServer((_request, response) => response.end('fine'));
    server.on(
      'upgrade',
      guardUpgradeHandler(() => {
        throw new Error('upgrade bug');
      }, faults),
    );
    servers.push(server);
    const port = await listenOnLoopback(server);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const closed = await new Promise<boolean>((resolve) => {
        const socket = connect({ host: '127.0.0.1', port }, () =>
          socket.write('GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n'),
        );
        socket.on('error', () => resolve(true));
        socket.on('close', () => resolve(true));
      });
      expect(closed).toBe(true);
    }
    expect((await rawGet(port, '/')).body).toBe('fine');
    expect(faults.count()).toBe(3);
    expect(logged).toHaveLength(1);
  });
});

describe('the WebSocket message path', () => {
  let served: ServeHandle | null = null;
  afterEach(async () => {
    await served?.close();
    served = null;
  });

  async function serveWith(handle: Parameters<typeof createStubHost>[0], logged: string[] = []): Promise<Client> {
    served = await startServe({
      host: createStubHost(handle),
      port: 0,
      token: TOKEN,
      logError: (line) => logged.push(line),
    });
    return openClient(served.port);
  }

  it.each([
    ['a rejecting host', async () => Promise.reject(new Error('host bug'))],
    [
      'a host that throws before it returns a promise',
      () => {
        throw new Error('sync host bug');
      },
    ],
    ['a result that cannot be serialised', async () => ({ ok: true as const, result: { big: 1n } })],
  ])(
    'answers the request id with an error when the host fails (%s), and the connection stays',
    async (_name, failing) => {
      const logged: string[] = [];
      let fail = true;
      const client = await serveWith(async (command) => (fail ? failing() : { ok: true, result: command }), logged);
      client.socket.send(request(41));
      const failed = await client.reply(41);
      expect(failed.ok === false && failed.error).toMatch(/internal error/);
      fail = false;
      client.socket.send(request(42));
      expect((await client.reply(42)).ok).toBe(true);
      expect(served?.faultCount()).toBe(1);
      expect(logged).toHaveLength(1);
      client.socket.close();
    },
  );

  it.each([
    ['text that is not JSON', '{ "kind": ', 0, /not valid JSON/],
    ['JSON of the wrong shape', '[1,2,3]', 0, /invalid request/],
    ['an unknown command', request(9, { type: 'rm -rf' }), 9, /invalid request/],
    [
      'a negative id',
      JSON.stringify({ kind: 'request', id: -1, command: { type: 'listScenarios' } }),
      0,
      /invalid request/,
    ],
    [
      'a prototype-polluting body',
      `{"kind":"request","id":10,"command":{"__proto__":{"type":"listScenarios"}}}`,
      10,
      /invalid request/,
    ],
    ['deeply nested JSON', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, 0, /invalid request/],
    ['a huge number as id', '{"kind":"request","id":1e400,"command":{"type":"listScenarios"}}', 0, /invalid request/],
  ])('answers %s with an error and keeps the connection', async (_name, frame, id, error) => {
    const client = await serveWith(async () => ({ ok: true, result: 'ok' }));
    client.socket.send(frame);
    const reply = await client.reply(id);
    expect(reply.ok === false && reply.error).toMatch(error);
    client.socket.send(request(77));
    expect((await client.reply(77)).ok).toBe(true);
    expect(served?.faultCount()).toBe(0);
    client.socket.close();
  });

  it('answers a binary frame with an error and keeps the connection', async () => {
    const client = await serveWith(async () => ({ ok: true, result: 'ok' }));
    client.socket.send(Buffer.from(request(5)), { binary: true });
    const reply = await client.reply(0);
    expect(reply.ok === false && reply.error).toMatch(/binary/);
    client.socket.send(request(6));
    expect((await client.reply(6)).ok).toBe(true);
    client.socket.close();
  });
});
