/**
 * The one place that holds the bridge. Actions call `send`, which validates each reply's result
 * against the schema of the command that asked for it.
 */
import {
  type BridgeApi,
  type CommandOf,
  type CommandResult,
  type CommandType,
  parseCommandResult,
} from '@treewarden/protocol';

let bridge: BridgeApi | null = null;

export function setBridge(next: BridgeApi | null): void {
  bridge = next;
}

export type SendResult<T extends CommandType> = { ok: true; result: CommandResult<T> } | { ok: false; error: string };

export async function send<T extends CommandType>(command: CommandOf<T>): Promise<SendResult<T>> {
  if (!bridge)
    return {
      ok: false,
      error: 'No host connection: open Treewarden from the desktop app or from the URL `treewarden serve` prints.',
    };
  const reply = await bridge.request(command);
  if (!reply.ok) return { ok: false, error: reply.error };
  const parsed = parseCommandResult(command.type as T, reply.result);
  return parsed.ok ? { ok: true, result: parsed.value } : { ok: false, error: parsed.error };
}
