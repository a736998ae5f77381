/**
 * The wire envelope shared by the Electron IPC bridge and the loopback WebSocket: a UI sends
 * `request`s; the host answers each with one `reply` and pushes `event`s.
 */
import { z } from 'zod';
import { type Command, type CommandResult, type CommandType, commandResultSchemas, commandSchema } from './commands.js';
import { eventSchema } from './events.js';
import { parseSystemDiffFast } from './system-diff-fast.js';

/** Largest message either side accepts; bigger ones are refused before parsing. */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

export const requestSchema = z.object({
  kind: z.literal('request'),
  id: z.number().int().nonnegative(),
  command: commandSchema,
});
export type Request = z.infer<typeof requestSchema>;

export const replySchema = z.discriminatedUnion('ok', [
  z.object({ kind: z.literal('reply'), id: z.number().int().nonnegative(), ok: z.literal(true), result: z.unknown() }),
  z.object({ kind: z.literal('reply'), id: z.number().int().nonnegative(), ok: z.literal(false), error: z.string() }),
]);
export type Reply = z.infer<typeof replySchema>;

export const serverMessageSchema = z.union([replySchema, z.object({ kind: z.literal('event'), event: eventSchema })]);
export type ServerMessage = z.infer<typeof serverMessageSchema>;

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

/** Untrusted text (a WebSocket frame) decoded, bounded; an already-structured value (IPC) as it is. */
function decode(raw: unknown, what: string): ParseResult<unknown> {
  if (typeof raw !== 'string') return { ok: true, value: raw };
  if (raw.length > MAX_MESSAGE_BYTES) return { ok: false, error: `${what} is larger than ${MAX_MESSAGE_BYTES} bytes` };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch {
    return { ok: false, error: `${what} is not valid JSON` };
  }
}

/** Parses untrusted text (a WebSocket frame) or an already-structured value (IPC). */
function parseWith<T>(schema: z.ZodType<T>, raw: unknown, what: string): ParseResult<T> {
  const decoded = decode(raw, what);
  if (!decoded.ok) return decoded;
  return parseDecoded(schema, decoded.value, what);
}

function parseDecoded<T>(schema: z.ZodType<T>, value: unknown, what: string): ParseResult<T> {
  const parsed = schema.safeParse(value);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, error: `invalid ${what}: ${describeIssues(parsed.error)}` };
}

export function parseRequest(raw: unknown): ParseResult<Request> {
  return parseWith(requestSchema, raw, 'request');
}

export function parseCommand(raw: unknown): ParseResult<Command> {
  return parseWith(commandSchema, raw, 'command');
}

export function parseServerMessage(raw: unknown): ParseResult<ServerMessage> {
  const decoded = decode(raw, 'server message');
  if (!decoded.ok) return decoded;
  // The system diff, the one message that is large and frequent, is checked by hand first
  // (system-diff-fast.ts); whatever that check is not sure of goes to the schema.
  const value = decoded.value as { kind?: unknown; event?: unknown } | null;
  if (typeof value === 'object' && value !== null && value.kind === 'event') {
    const event = parseSystemDiffFast(value.event);
    if (event !== null) return { ok: true, value: { kind: 'event', event } };
  }
  return parseDecoded(serverMessageSchema, decoded.value, 'server message');
}

/** Validates a reply's result against the schema of the command that asked for it. */
export function parseCommandResult<T extends CommandType>(type: T, raw: unknown): ParseResult<CommandResult<T>> {
  return parseWith(commandResultSchemas[type] as unknown as z.ZodType<CommandResult<T>>, raw, `${type} result`);
}

export type { Command };
