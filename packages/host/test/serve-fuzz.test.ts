/**
 * Fuzzes the HTTP/WebSocket front of a real `treewarden serve` child process (a crash shows as an
 * exit) over loopback only: thousands of malformed requests, odd methods, duplicate and oversized
 * headers, invalid UTF-8, resets mid-request and mid-upgrade, and protocol-breaking WebSocket
 * frames on authenticated sockets. Bounded in count and in time. Then the same process must
 * still answer a good client correctly, over HTTP and over the WebSocket, and must have logged
 * no handler fault.
 */
import { connect } from 'node:net';
import { parseServerMessage, type ServerMessage, WS_PATH } from '@treewarden/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { waitFor } from '../../engine/test/helpers/index.js';
import {
  type FrontContext,
  type Random,
  randomHttpRequest,
  randomWsFrames,
  seededRandom,
  upgradeRequest,
} from './fuzz-cases.js';
import { EXCHANGE_WAIT_MS, rawGet } from './raw-http.js';
import { SERVE_START_WAIT_MS, type ServeChild, startServeChild } from './serve-child.js';

const FUZZ_SEED = 0x7ee5eed;
const TOTAL_CASES = 5000;
/** Connections in flight at once: enough pressure to interleave, little enough for a 2-core box. */
const CONCURRENCY = 16;
/** No new case starts after this; the cases already in flight finish within EXCHANGE_WAIT_MS. */
const FUZZ_DEADLINE_MS = 150_000;
const FUZZ_TEST_MS = FUZZ_DEADLINE_MS + EXCHANGE_WAIT_MS + 60_000;

type Finish = 'end' | 'reset-now' | 'reset-partial' | 'reset-on-answer';

interface CasePlan {
  readonly kind: string;
  readonly request: Buffer;
  /** Frames to send once the upgrade was accepted (101). */
  readonly frames?: readonly Buffer[];
  readonly finish: Finish;
}

function planCase(random: Random, context: FrontContext): CasePlan {
  const roll = random();
  if (roll < 0.6) {
    const finish: Finish = random() < 0.2 ? 'reset-partial' : 'end';
    return { kind: `http ${finish}`, request: randomHttpRequest(random, context), finish };
  }
  if (roll < 0.75) {
    const finish: Finish = random() < 0.5 ? 'reset-now' : 'reset-on-answer';
    return { kind: `refused upgrade ${finish}`, request: upgradeRequest(context, false), finish };
  }
  if (roll < 0.8)
    return { kind: 'accepted upgrade reset-now', request: upgradeRequest(context, true), finish: 'reset-now' };
  const finish: Finish = random() < 0.5 ? 'end' : 'reset-on-answer';
  return {
    kind: `ws frames ${finish}`,
    request: upgradeRequest(context, true),
    frames: randomWsFrames(random),
    finish,
  };
}

/** Plays one case on a fresh socket; resolves with what the client saw first (status or close). */
function playCase(port: number, plan: CasePlan, cut: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let received = '';
    let outcome = 'closed without an answer';
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => {
      outcome = 'no answer within the bound';
      done();
    }, EXCHANGE_WAIT_MS);
    socket.on('error', () => {
      // Resets are the point of half of these cases.
    });
    socket.on('close', done);
    socket.on('connect', () => {
      if (plan.finish === 'reset-partial') {
        socket.write(plan.request.subarray(0, Math.max(1, Math.floor(plan.request.length * cut))), () =>
          socket.resetAndDestroy(),
        );
        outcome = 'reset mid-request';
        return;
      }
      socket.write(plan.request, () => {
        if (plan.finish !== 'reset-now') return;
        outcome = 'reset mid-upgrade';
        socket.resetAndDestroy();
      });
      if (plan.finish === 'end' && plan.frames === undefined) socket.end();
    });
    socket.on('data', (chunk: Buffer) => {
      const first = received === '';
      received += chunk.toString('latin1');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(received)?.[1];
      if (first && status !== undefined) outcome = status;
      if (!first || plan.finish === 'reset-now') return;
      if (status === '101' && plan.frames !== undefined) {
        for (const frame of plan.frames) socket.write(frame);
      }
      if (plan.finish === 'reset-on-answer') socket.resetAndDestroy();
      else socket.end();
    });
  });
}

async function runFuzz(served: ServeChild): Promise<{ played: number; outcomes: Map<string, number> }> {
  const random = seededRandom(FUZZ_SEED);
  const context: FrontContext = { port: served.port, token: served.token };
  const plans = Array.from({ length: TOTAL_CASES }, () => ({ plan: planCase(random, context), cut: random() }));
  const outcomes = new Map<string, number>();
  const deadline = Date.now() + FUZZ_DEADLINE_MS;
  let next = 0;
  const worker = async () => {
    while (next < plans.length && Date.now() < deadline && served.child.exitCode === null) {
      const { plan, cut } = plans[next] as (typeof plans)[number];
      next += 1;
      const outcome = `${plan.kind}: ${await playCase(served.port, plan, cut)}`;
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { played: next, outcomes };
}

function openGoodClient(served: ServeChild): Promise<{ socket: WebSocket; messages: ServerMessage[] }> {
  const socket = new WebSocket(`ws://127.0.0.1:${served.port}${WS_PATH}?token=${served.token}`, {
    origin: `http://127.0.0.1:${served.port}`,
  });
  const messages: ServerMessage[] = [];
  socket.on('message', (data) => {
    const parsed = parseServerMessage(data.toString());
    if (parsed.ok) messages.push(parsed.value);
  });
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ socket, messages }));
    socket.once('error', reject);
  });
}

describe('serve under a fuzzed front', () => {
  let served: ServeChild;

  beforeAll(async () => {
    served = await startServeChild();
  }, SERVE_START_WAIT_MS + 10_000);

  afterAll(() => served.dispose(), SERVE_START_WAIT_MS);

  it(
    'survives thousands of hostile requests and still answers a good client correctly',
    async () => {
      const { played, outcomes } = await runFuzz(served);
      const summary = [...outcomes].sort((a, b) => b[1] - a[1]).map(([what, count]) => `${count}\t${what}`);
      console.info(`serve fuzz: ${played} cases (seed ${FUZZ_SEED})\n${summary.join('\n')}`);

      expect(served.child.exitCode).toBeNull();
      expect(served.child.signalCode).toBeNull();
      expect([...outcomes.keys()].filter((what) => what.endsWith('no answer within the bound'))).toEqual([]);
      expect(served.stderr()).not.toMatch(/unexpected error|Uncaught|ECONNRESET/);

      const page = await rawGet(served.port, `/?token=${served.token}`);
      expect(page.status).toBe(200);
      expect(page.body).toContain('Treewarden');
      expect((await rawGet(served.port, '/?token=wrong')).status).toBe(401);

      const client = await openGoodClient(served);
      client.socket.send(JSON.stringify({ kind: 'request', id: 1, command: { type: 'listScenarios' } }));
      const reply = await waitFor(() => client.messages.find((m) => m.kind === 'reply' && m.id === 1), {
        timeoutMs: SERVE_START_WAIT_MS,
        description: 'the reply to listScenarios',
      });
      expect(reply.kind === 'reply' && reply.ok).toBe(true);
      const snapshot = await waitFor(
        () => client.messages.find((m) => m.kind === 'event' && m.event.type === 'snapshot'),
        { timeoutMs: SERVE_START_WAIT_MS, description: 'a snapshot event' },
      );
      expect(
        snapshot.kind === 'event' && snapshot.event.type === 'snapshot' && snapshot.event.snapshot.counts,
      ).toBeTruthy();
      client.socket.close();
      expect(await served.stop()).toBe(0);
    },
    FUZZ_TEST_MS,
  );
});
