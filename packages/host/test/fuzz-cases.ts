/**
 * Hostile inputs for the serve front, generated from a seed so a failure can be replayed: broken
 * request lines and targets, odd methods, duplicate and oversized headers, invalid UTF-8, bodies
 * that lie about their length, and raw WebSocket frames that break the protocol.
 */
/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Random = () => number;

function randomBuffer(random: Random, length: number): Buffer {
  return Buffer.from(Array.from({ length }, () => Math.floor(random() * 256)));
}

/** Any fixed mask will do: the server must unmask whatever it gets. */
const MASK = Buffer.from([0x37, 0xfa, 0x21, 0x3d]);
const SAMPLE_KEY = 'dGhlIHNhbXBsZSBub25jZQ==';

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

export interface FrontContext {
  readonly port: number;
  readonly token: string;
}

const INVALID_UTF8 = Buffer.from([0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80, 0xf8]).toString('latin1');

function targets(random: Random, context: FrontContext): string[] {
  return [
    '/',
    `/?token=${context.token}`,
    '/ws',
    `/ws?token=${context.token}`,
    '//x:99999/',
    'http://[',
    '*',
    '',
    ' ',
    '/%',
    '/%zz',
    '/%69ndex.html',
    '/%2e%2e/%2e%2e/etc/passwd',
    '/..\\..\\x',
    `/${INVALID_UTF8}`,
    `/?token=${INVALID_UTF8}`,
    `http://127.0.0.1:${context.port}/`,
    '127.0.0.1:80',
    `/${'a'.repeat(9000)}`,
    `/?${'token=x&'.repeat(2000)}`,
    '/\u0000',
    '/index.html;x',
    `/${randomBuffer(random, 12).toString('latin1')}`,
  ];
}

const METHODS = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'OPTIONS',
  'TRACE',
  'PATCH',
  'PROPFIND',
  'CONNECT',
  'FOO',
  'get',
  'G\u0000T',
  '',
  'PRI',
  'GET GET',
];
const VERSIONS = ['HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/9.9', '', 'http/1.1', 'HTTP/1.1 extra', 'HTTP/1.'];

function headerChoices(context: FrontContext): string[][] {
  const host = `Host: 127.0.0.1:${context.port}`;
  const origin = `Origin: http://127.0.0.1:${context.port}`;
  return [
    [host],
    [host, host],
    [host, 'Host: evil.example'],
    [`Host: ${'h'.repeat(20_000)}`],
    ['Host:'],
    [],
    [origin],
    [origin, 'Origin: http://evil.example'],
    ['Origin: null'],
    [`Origin: ${'o'.repeat(9000)}`],
    ['Connection: Upgrade', 'Upgrade: websocket'],
    ['Connection: Upgrade', 'Upgrade: websocket', 'Upgrade: h2c'],
    ['Connection: Upgrade', `Upgrade: ${'w'.repeat(9000)}`],
    ['Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=='],
    ['Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAA=='],
    [`Sec-WebSocket-Key: ${'k'.repeat(9000)}`],
    ['Sec-WebSocket-Key: !!!', 'Sec-WebSocket-Version: 99'],
    ['Content-Length: 5'],
    ['Content-Length: -1'],
    ['Content-Length: 99999999999999999999'],
    ['Content-Length: 1', 'Content-Length: 2'],
    ['Transfer-Encoding: chunked'],
    ['Transfer-Encoding: gzip, chunked, x'],
    ['Transfer-Encoding: chunked', 'Content-Length: 3'],
    [`X-Bad: ${INVALID_UTF8}`],
    ['NoColonHere'],
    [' folded: line'],
    ['Bad Name: x'],
    Array.from({ length: 300 }, (_, index) => `X-Many-${index}: ${index}`),
    ['Expect: 100-continue', 'Content-Length: 10'],
  ];
}

const BODIES = ['', 'hello', '5\r\nabc\r\n', 'zz\r\n\r\n', '0\r\n\r\n', INVALID_UTF8, 'x'.repeat(70_000)];

/** A parseable GET with our Host and one odd part: the handlers, not the parser, must cope. */
function plausibleRequest(random: Random, context: FrontContext): Buffer {
  const extra = random() < 0.5 ? pick(random, headerChoices(context)) : [];
  const lines = [`GET ${pick(random, targets(random, context))} HTTP/1.1`, `Host: 127.0.0.1:${context.port}`, ...extra];
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

/** One malformed-or-odd HTTP request, as bytes: half of them parse, the other half break the parser. */
export function randomHttpRequest(random: Random, context: FrontContext): Buffer {
  if (random() < 0.5) return plausibleRequest(random, context);
  const headerCount = 1 + Math.floor(random() * 3);
  const headers: string[] = [];
  for (let index = 0; index < headerCount; index += 1) headers.push(...pick(random, headerChoices(context)));
  const line = `${pick(random, METHODS)} ${pick(random, targets(random, context))} ${pick(random, VERSIONS)}`;
  const newline = random() < 0.1 ? '\n' : '\r\n';
  return Buffer.from(`${line}${newline}${headers.join(newline)}${newline}${newline}${pick(random, BODIES)}`, 'latin1');
}

/** A well-formed upgrade request, with or without the right token. */
export function upgradeRequest(context: FrontContext, withToken: boolean): Buffer {
  const query = withToken ? `?token=${context.token}` : '?token=nope';
  return Buffer.from(
    [
      `GET /ws${query} HTTP/1.1`,
      `Host: 127.0.0.1:${context.port}`,
      `Origin: http://127.0.0.1:${context.port}`,
      'Connection: Upgrade',
      'Upgrade: websocket',
      'Sec-WebSocket-Version: 13',
      `Sec-WebSocket-Key: ${SAMPLE_KEY}`,
      '',
      '',
    ].join('\r\n'),
  );
}

interface FrameOptions {
  readonly fin?: boolean;
  readonly masked?: boolean;
  readonly rsv?: number;
  /** Claimed payload length, when it must lie. */
  readonly claimedLength?: bigint;
}

/** One WebSocket frame (RFC 6455 §5.2), masked as a client's must be unless told otherwise. */
export function wsFrame(opcode: number, payload: Buffer, options: FrameOptions = {}): Buffer {
  const masked = options.masked ?? true;
  const length = options.claimedLength ?? BigInt(payload.length);
  const first = ((options.fin ?? true) ? 0x80 : 0) | ((options.rsv ?? 0) << 4) | opcode;
  const maskBit = masked ? 0x80 : 0;
  let header: Buffer;
  if (length < 126n) header = Buffer.from([first, maskBit | Number(length)]);
  else if (length < 65_536n) {
    header = Buffer.alloc(4);
    header.writeUInt8(first, 0);
    header.writeUInt8(maskBit | 126, 1);
    header.writeUInt16BE(Number(length), 2);
  } else {
    header = Buffer.alloc(10);
    header.writeUInt8(first, 0);
    header.writeUInt8(maskBit | 127, 1);
    header.writeBigUInt64BE(length, 2);
  }
  if (!masked) return Buffer.concat([header, payload]);
  const body = Buffer.from(payload.map((byte, index) => byte ^ (MASK[index % 4] as number)));
  return Buffer.concat([header, MASK, body]);
}

const TEXT = 0x1;
const BINARY = 0x2;
const CLOSE = 0x8;
const PING = 0x9;

/** Frames that a correct server answers with an error reply or a protocol close, never a crash. */
export function randomWsFrames(random: Random): Buffer[] {
  const text = (value: string) => wsFrame(TEXT, Buffer.from(value));
  const choices: Array<() => Buffer[]> = [
    () => [text('{ not json')],
    () => [text(JSON.stringify({ kind: 'request', id: 3, command: { type: 'killTree', target: { pid: 1 } } }))],
    () => [text(JSON.stringify({ kind: 'request', id: 4, command: { type: '__proto__' } }))],
    () => [text(`${'['.repeat(50_000)}${']'.repeat(50_000)}`)],
    () => [wsFrame(TEXT, Buffer.from(INVALID_UTF8, 'latin1'))],
    () => [wsFrame(BINARY, randomBuffer(random, 64))],
    () => [wsFrame(TEXT, Buffer.from('{}'), { masked: false })],
    () => [wsFrame(TEXT, Buffer.from('{}'), { rsv: 3 })],
    () => [wsFrame(0x3, Buffer.from('reserved opcode'))],
    () => [wsFrame(PING, randomBuffer(random, 200))],
    () => [wsFrame(PING, Buffer.alloc(0), { fin: false })],
    () => [wsFrame(CLOSE, Buffer.from([0x03, 0xe7]))],
    () => [wsFrame(CLOSE, Buffer.from([0x0b]))],
    () => [wsFrame(TEXT, Buffer.alloc(0), { claimedLength: 2n ** 63n - 1n })],
    () => [wsFrame(TEXT, Buffer.from('{"kind":'), { fin: false }), wsFrame(TEXT, Buffer.from('"request"}'))],
    () => [wsFrame(0x0, Buffer.from('continuation without a start'))],
    () => [randomBuffer(random, 1 + Math.floor(random() * 64))],
  ];
  const frames: Buffer[] = [];
  const count = 1 + Math.floor(random() * 3);
  for (let index = 0; index < count; index += 1) frames.push(...pick(random, choices)());
  return frames;
}
