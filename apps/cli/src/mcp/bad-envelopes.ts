/**
 * Frames that carry an id but are not JSON-RPC (no `jsonrpc: "2.0"`, a `method` that is not a
 * string, neither method nor result): the SDK's transport reports them to onerror and skips them,
 * so the client waits forever for that id. JSON-RPC says such a request gets an Invalid Request
 * error carrying its id. This filter sits between stdin and the transport: it answers those
 * frames itself and passes every other byte through unchanged, in order (a frame that is not JSON,
 * or has no usable id, goes on to the SDK, which skips it as before).
 */
import { PassThrough, type Readable } from 'node:stream';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

/** JSON-RPC 2.0's code for a frame that is JSON but not a valid request. */
export const INVALID_REQUEST = -32600;
const NEWLINE = 0x0a;

export type RequestId = string | number;

/** The id of a frame that is JSON with a string or number id but not a JSON-RPC message; else null. */
export function badEnvelopeId(line: string): RequestId | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !('id' in value)) return null;
  const { id } = value;
  if (typeof id !== 'string' && typeof id !== 'number') return null;
  return JSONRPCMessageSchema.safeParse(value).success ? null : id;
}

export function invalidRequestFrame(id: RequestId): string {
  const message = 'Invalid Request: not a JSON-RPC 2.0 message (jsonrpc "2.0" with a string method, or a result/error)';
  return `${JSON.stringify({ jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message } })}\n`;
}

/**
 * `input` as the transport should read it, with bad envelopes answered through `answer`. A line
 * longer than `maxLineBytes` is passed through unread (the transport's own bound then applies),
 * so the filter never holds more than one bounded line.
 */
export function answerBadEnvelopes(input: Readable, answer: (frame: string) => void, maxLineBytes: number): Readable {
  const output = new PassThrough();
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let passing = false;
  const take = (chunk: Buffer) => {
    let rest = chunk;
    for (;;) {
      const end = rest.indexOf(NEWLINE);
      if (end < 0) break;
      const piece = rest.subarray(0, end + 1);
      rest = rest.subarray(end + 1);
      if (passing) {
        output.write(piece);
        passing = false;
        continue;
      }
      const line = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
      pending = [];
      pendingBytes = 0;
      const id = badEnvelopeId(line.toString('utf8'));
      if (id === null) output.write(line);
      else answer(invalidRequestFrame(id));
    }
    if (rest.length === 0) return;
    if (passing) {
      output.write(rest);
      return;
    }
    pending.push(rest);
    pendingBytes += rest.length;
    if (pendingBytes > maxLineBytes) {
      output.write(Buffer.concat(pending));
      pending = [];
      pendingBytes = 0;
      passing = true;
    }
  };
  input.on('data', (chunk: Buffer | string) => take(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  input.on('error', (error) => output.emit('error', error));
  input.on('end', () => {
    if (pending.length > 0) output.write(Buffer.concat(pending));
    output.end();
  });
  return output;
}
