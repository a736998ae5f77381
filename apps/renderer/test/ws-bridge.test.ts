import type { HostEvent } from '@treewarden/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ConnectionStatus } from '../src/store/types';
import { backoffDelay, createWsBridge, MAX_BACKOFF_MS, MIN_BACKOFF_MS } from '../src/transport/ws-bridge';
import { makeSnapshot } from './fixtures';

/** Just enough of a WebSocket for the bridge: the test drives open, frames and close. */
class FakeSocket {
  static instances: FakeSocket[] = [];
  readyState = 0;
  sent: string[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.instances.push(this);
  }
  send(data: string) {
    this.sent.push(data);
  }
  close() {
    this.readyState = 3;
  }
  open() {
    this.readyState = 1;
    this.onopen?.();
  }
  receive(data: unknown) {
    this.onmessage?.({ data: typeof data === 'string' ? data : JSON.stringify(data) });
  }
  drop(code = 1006, reason = '') {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
}

function setup() {
  const statuses: Array<[ConnectionStatus, string | null]> = [];
  const bridge = createWsBridge({
    url: 'ws://127.0.0.1:1/ws?token=t',
    onStatus: (status, message) => statuses.push([status, message]),
    createSocket: (url) => new FakeSocket(url) as unknown as WebSocket,
  });
  return { bridge, statuses, socket: () => FakeSocket.instances.at(-1) as FakeSocket };
}

describe('createWsBridge', () => {
  beforeEach(() => {
    FakeSocket.instances = [];
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it('answers a request with the reply of the same id', async () => {
    const { bridge, socket } = setup();
    socket().open();
    const pending = bridge.request({ type: 'listScenarios' });
    const request = JSON.parse(socket().sent[0] as string);
    expect(request).toMatchObject({ kind: 'request', command: { type: 'listScenarios' } });
    socket().receive({ kind: 'reply', id: request.id, ok: true, result: { scenarios: [] } });
    await expect(pending).resolves.toMatchObject({ ok: true, result: { scenarios: [] } });
    bridge.close();
  });

  it('delivers valid events and drops invalid frames without throwing', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { bridge, socket } = setup();
    socket().open();
    const events: HostEvent[] = [];
    bridge.onEvent((event) => events.push(event));
    socket().receive('{not json');
    socket().receive({ kind: 'event', event: { type: 'snapshot', snapshot: { leases: 'nope' } } });
    socket().receive({ kind: 'event', event: { type: 'snapshot', snapshot: makeSnapshot() } });
    expect(events.map((event) => event.type)).toEqual(['snapshot']);
    expect(warn).toHaveBeenCalledTimes(2);
    warn.mockRestore();
    bridge.close();
  });

  it('fails pending requests when the socket drops, then reconnects with backoff', async () => {
    const { bridge, socket, statuses } = setup();
    const first = socket();
    first.open();
    const pending = bridge.request({ type: 'getHistory' });
    first.drop();
    await expect(pending).resolves.toMatchObject({ ok: false });
    expect(statuses.at(-1)?.[0]).toBe('closed');
    expect(FakeSocket.instances).toHaveLength(1);
    vi.advanceTimersByTime(MIN_BACKOFF_MS);
    expect(FakeSocket.instances).toHaveLength(2);
    socket().open();
    expect(statuses.at(-1)).toEqual(['open', null]);
    bridge.close();
  });

  it('says the token may be wrong when it never connected', () => {
    const { bridge, socket, statuses } = setup();
    socket().drop();
    expect(statuses.at(-1)?.[1]).toMatch(/token may be wrong/);
    bridge.close();
  });

  it('refuses a request while disconnected instead of queueing it forever', async () => {
    const { bridge } = setup();
    await expect(bridge.request({ type: 'listScenarios' })).resolves.toMatchObject({
      ok: false,
      error: expect.stringMatching(/Not connected/),
    });
    bridge.close();
  });

  it('caps the backoff', () => {
    expect(backoffDelay(0)).toBe(MIN_BACKOFF_MS);
    expect(backoffDelay(1)).toBe(MIN_BACKOFF_MS * 2);
    expect(backoffDelay(30)).toBe(MAX_BACKOFF_MS);
  });
});
