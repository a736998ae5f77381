/**
 * trimSession: ends exactly the alerted processes of a live agent session's pile-up. Until the
 * engine's alert judgement is wired in, it refuses: nothing is signalled.
 */
import type { CommandOf, CommandResult } from '@treewarden/protocol';
import type { HostContext } from '../context.js';
import { CommandRefusedError } from './run-commands.js';

export async function trimSession(
  _context: HostContext,
  command: CommandOf<'trimSession'>,
): Promise<CommandResult<'trimSession'>> {
  throw new CommandRefusedError(
    `session ${command.sessionId}: this host does not judge pile-ups yet; nothing was signalled`,
  );
}
