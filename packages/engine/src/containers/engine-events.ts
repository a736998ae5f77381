/**
 * The engine's container event stream (`GET /events`, filtered to create/start/die/destroy), kept
 * open across dockerd restarts: a dropped stream reconnects after a backoff that doubles up to a
 * bound. Nothing is opened while no engine socket exists (only a stat per retry), so machines
 * without containers pay nothing.
 */
import { type ClientRequest, request } from 'node:http';
import { findEngineSocket } from './engine-socket.js';

export type ContainerAction = 'create' | 'start' | 'die' | 'destroy';
const ACTIONS: readonly ContainerAction[] = ['create', 'start', 'die', 'destroy'];

export interface ContainerEvent {
  readonly action: ContainerAction;
  readonly id: string;
  /** The engine's attributes: name, image and the container's labels. */
  readonly attributes: Readonly<Record<string, string>>;
  /** The engine's own time of the event (ns precision rounded to ms). */
  readonly atMs: number;
  /** When this process read it: attribution delay is measured from here back to `atMs`. */
  readonly receivedAtMs: number;
}

export interface EventStreamOptions {
  /** Resolves the socket on every (re)connect; default: the usual candidates. */
  readonly findSocket?: () => string | null;
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** Called once per open stream (tests wait for it before starting containers). */
  readonly onConnected?: (socketPath: string) => void;
}

export interface EventStream {
  close(): void;
}

const EVENTS_PATH = `/events?filters=${encodeURIComponent(JSON.stringify({ type: ['container'], event: ACTIONS }))}`;
/** One event line is under a few kB; a line past this is not an event and drops the stream. */
const MAX_LINE_BYTES = 1024 * 1024;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One line of the stream; null for anything that is not a container event we asked for. */
export function parseContainerEvent(line: string, receivedAtMs: number): ContainerEvent | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isObject(value) || value.Type !== 'container') return null;
  const action = ACTIONS.find((a) => a === value.Action);
  const actor = isObject(value.Actor) ? value.Actor : {};
  const id = typeof actor.ID === 'string' ? actor.ID : typeof value.id === 'string' ? value.id : null;
  if (action === undefined || id === null) return null;
  const attributes: Record<string, string> = {};
  if (isObject(actor.Attributes))
    for (const [k, v] of Object.entries(actor.Attributes)) if (typeof v === 'string') attributes[k] = v;
  const atMs = typeof value.timeNano === 'number' ? Math.round(value.timeNano / 1e6) : Number(value.time ?? 0) * 1000;
  return { action, id, attributes, atMs, receivedAtMs };
}

/** Follows the stream until `close()`; `onEvent` runs for each container event, in order. */
export function followContainerEvents(
  onEvent: (event: ContainerEvent) => void,
  options: EventStreamOptions = {},
): EventStream {
  const findSocket = options.findSocket ?? (() => findEngineSocket());
  const minBackoff = options.minBackoffMs ?? 250;
  const maxBackoff = options.maxBackoffMs ?? 5000;
  let backoff = minBackoff;
  let closed = false;
  let current: ClientRequest | null = null;
  let timer: NodeJS.Timeout | null = null;

  const retry = (): void => {
    if (closed) return;
    timer = setTimeout(connect, backoff);
    timer.unref();
    backoff = Math.min(maxBackoff, backoff * 2);
  };

  function connect(): void {
    timer = null;
    if (closed) return;
    const socketPath = findSocket();
    if (socketPath === null) {
      retry();
      return;
    }
    const req = request({ socketPath, method: 'GET', path: EVENTS_PATH, headers: { Host: 'docker' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return;
      }
      backoff = minBackoff;
      options.onConnected?.(socketPath);
      let pending = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        pending += chunk;
        let newline = pending.indexOf('\n');
        while (newline >= 0) {
          const event = parseContainerEvent(pending.slice(0, newline), Date.now());
          pending = pending.slice(newline + 1);
          if (event !== null) onEvent(event);
          newline = pending.indexOf('\n');
        }
        if (pending.length > MAX_LINE_BYTES) req.destroy();
      });
      res.on('error', () => undefined);
    });
    current = req;
    // The stream ends when dockerd stops or restarts: reconnect (the socket may move or vanish meanwhile).
    req.on('close', () => {
      if (current === req) current = null;
      retry();
    });
    req.on('error', () => undefined);
    req.end();
    // The open stream must not keep a CLI or a test process alive on its own.
    req.on('socket', (socket) => socket.unref());
  }

  connect();
  return {
    close() {
      closed = true;
      if (timer !== null) clearTimeout(timer);
      current?.destroy();
      current = null;
    },
  };
}
