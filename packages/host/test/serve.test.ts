/**
 * `treewarden serve` end to end: the built CLI in its own process, probed over HTTP and WebSocket
 * like a browser (and like an attacker's page) would.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { MAX_MESSAGE_BYTES, parseServerMessage, type ServerMessage, WS_PATH } from '@treewarden/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { fixturePath, isRunning, pollUntil } from '../../../test-support/index.js';
import { SERVE_EXIT_WAIT_MS, SERVE_START_WAIT_MS, type ServeChild, startServeChild } from './serve-child.js';

const START_WAIT_MS = SERVE_START_WAIT_MS;
const EXIT_WAIT_MS = SERVE_EXIT_WAIT_MS;
const SLOW_TEST_MS = 120_000;

type Served = ServeChild;

function httpGet(
  served: Served,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: served.port, path, headers }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function origin(served: Served): string {
  return `http://127.0.0.1:${served.port}`;
}

/** Resolves with the HTTP status the upgrade was refused with, or 101 when it was accepted. */
function upgradeStatus(served: Served, query: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${served.port}${WS_PATH}${query}`, { headers });
    socket.once('open', () => {
      socket.close();
      resolve(101);
    });
    socket.once('unexpected-response', (_req, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.once('error', (error) => reject(error));
  });
}

interface Client {
  readonly socket: WebSocket;
  readonly messages: ServerMessage[];
  send(text: string): void;
  reply(id: number): Promise<ServerMessage & { kind: 'reply' }>;
}

function openClient(served: Served): Promise<Client> {
  const socket = new WebSocket(`ws://127.0.0.1:${served.port}${WS_PATH}?token=${served.token}`, {
    origin: origin(served),
  });
  const messages: ServerMessage[] = [];
  socket.on('message', (data) => {
    const parsed = parseServerMessage(data.toString());
    if (parsed.ok) messages.push(parsed.value);
  });
  const client: Client = {
    socket,
    messages,
    send: (text) => socket.send(text),
    reply: (id) =>
      pollUntil(
        () =>
          messages.find(
            (message): message is ServerMessage & { kind: 'reply' } => message.kind === 'reply' && message.id === id,
          ),
        {
          deadlineMs: START_WAIT_MS,
          description: `reply ${id}`,
        },
      ),
  };
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(client));
    socket.once('error', reject);
  });
}

function nonLoopbackAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((info) => info !== undefined && info.family === 'IPv4' && !info.internal)?.address;
}

describe('treewarden serve', () => {
  let served: Served;

  beforeAll(async () => {
    served = await startServeChild();
  }, SLOW_TEST_MS);

  afterAll(() => served.dispose(), SLOW_TEST_MS);

  it('prints a loopback URL with a long token and binds nothing else', async () => {
    expect(served.url.hostname).toBe('127.0.0.1');
    expect(served.token.length).toBeGreaterThanOrEqual(43);
    const other = nonLoopbackAddress();
    if (other === undefined) return;
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: other, port: served.port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', () => resolve(true));
    });
    expect(refused).toBe(true);
  });

  it('serves the page shell with the right token or none, refuses a wrong one, always with a strict CSP', async () => {
    const page = await httpGet(served, `/?token=${served.token}`);
    expect(page.status).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain(`connect-src ws://127.0.0.1:${served.port}`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    // No token: the shell is served (it holds no secret) so that a reload, whose token lives in
    // sessionStorage, and the launch page, whose token rides in the fragment, both work.
    const bare = await httpGet(served, '/');
    expect(bare.status).toBe(200);
    expect(bare.body).toBe(page.body);
    expect(bare.headers['cache-control']).toBe('no-store');
    expect((await httpGet(served, '/?token=wrong')).status).toBe(401);
    expect((await httpGet(served, `/?token=${served.token}&token=${served.token}`)).status).toBe(401);
    expect((await httpGet(served, '/../../../../etc/passwd')).status).toBe(400);
  });

  it('serves the built assets the page names without the token, under the same CSP', async () => {
    const page = await httpGet(served, `/?token=${served.token}`);
    const script = /src="\.?\/?(assets\/[^"]+\.js)"/.exec(page.body)?.[1];
    // Without a renderer build the server shows a "not built" page that names no script.
    if (script === undefined) return;
    const asset = await httpGet(served, `/${script}`);
    expect(asset.status).toBe(200);
    expect(String(asset.headers['content-type'])).toMatch(/javascript/);
    expect(String(asset.headers['content-security-policy'])).toContain("script-src 'self'");
  });

  it('refuses a bad Host and a foreign Origin on HTTP', async () => {
    expect((await httpGet(served, `/?token=${served.token}`, { Host: `evil.example:${served.port}` })).status).toBe(
      421,
    );
    expect((await httpGet(served, `/?token=${served.token}`, { Origin: 'http://evil.example' })).status).toBe(403);
  });

  it('refuses WebSocket upgrades without the token, from a bad Host or a foreign Origin', async () => {
    const good = { Origin: origin(served) };
    expect(await upgradeStatus(served, '', good)).toBe(401);
    expect(await upgradeStatus(served, '?token=nope', good)).toBe(401);
    expect(await upgradeStatus(served, `?token=${served.token}x`, good)).toBe(401);
    expect(await upgradeStatus(served, `?token=${served.token}`, { Origin: 'http://evil.example' })).toBe(403);
    expect(await upgradeStatus(served, `?token=${served.token}`, {})).toBe(403);
    expect(
      await upgradeStatus(served, `?token=${served.token}`, { ...good, Host: `evil.example:${served.port}` }),
    ).toBe(421);
    expect(await upgradeStatus(served, `?token=${served.token}`, good)).toBe(101);
  });

  it('answers a malformed message with an error and keeps the connection', async () => {
    const client = await openClient(served);
    client.send('{ not json');
    const error = await client.reply(0);
    expect(error.ok).toBe(false);
    client.send(JSON.stringify({ kind: 'request', id: 7, command: { type: 'killTree', target: { pid: 0 } } }));
    const invalid = await client.reply(7);
    expect(invalid.ok === false && invalid.error).toMatch(/invalid request/);
    client.send(JSON.stringify({ kind: 'request', id: 8, command: { type: 'listScenarios' } }));
    expect((await client.reply(8)).ok).toBe(true);
    client.socket.close();
  });

  it('refuses an oversized message by closing with 1009', async () => {
    const client = await openClient(served);
    const closed = new Promise<number>((resolve) => client.socket.once('close', (code) => resolve(code)));
    client.send('x'.repeat(MAX_MESSAGE_BYTES + 1));
    expect(await closed).toBe(1009);
  });

  it(
    'ends the runs it started when it is stopped',
    async () => {
      const client = await openClient(served);
      client.send(
        JSON.stringify({
          kind: 'request',
          id: 1,
          command: {
            type: 'startRun',
            command: process.execPath,
            args: [fixturePath('spawn-children.mjs'), '2', 'run-forever.mjs'],
            timeoutSeconds: 120,
          },
        }),
      );
      const started = await client.reply(1);
      if (!started.ok) throw new Error(started.error);
      const { runId } = started.result as { runId: string };
      const processes = await pollUntil(
        () => {
          for (const message of [...client.messages].reverse()) {
            if (message.kind !== 'event' || message.event.type !== 'snapshot') continue;
            const run = message.event.snapshot.leases.flatMap((lease) => lease.runs).find((view) => view.id === runId);
            return run !== undefined && run.processes.length >= 3 ? run.processes : null;
          }
          return null;
        },
        { deadlineMs: START_WAIT_MS, description: 'the run tree in a snapshot' },
      );
      // Seen once under two busy loops: the exit code was null (a signal). Say which, and what serve wrote.
      const code = await served.stop();
      expect(code, `serve's exit: signal ${served.child.signalCode}; stderr: ${served.stderr()}`).toBe(0);
      await pollUntil(() => processes.every((node) => !isRunning(node.pid, node.startTime)), {
        deadlineMs: EXIT_WAIT_MS,
        description: 'the run tree to be gone',
      });
    },
    SLOW_TEST_MS,
  );
});
